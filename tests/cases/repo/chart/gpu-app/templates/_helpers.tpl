{{- define "gpu-app.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "gpu-app.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
{{- end }}
