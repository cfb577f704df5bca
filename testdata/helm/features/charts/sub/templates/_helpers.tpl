{{- define "features.labels" -}}
subchart-define: must-not-win
{{- end -}}
{{- define "sub.name" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end -}}
