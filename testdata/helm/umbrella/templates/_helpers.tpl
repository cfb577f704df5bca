{{- define "umbrella.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
team: {{ .Values.global.team }}
{{- end -}}
