{{- define "features.port" -}}
- name: {{ .name }}
  containerPort: {{ .port }}
{{- end -}}
{{- define "features.labels" -}}
app: {{ .Chart.Name }}
release: {{ .Release.Name }}
{{- end -}}
