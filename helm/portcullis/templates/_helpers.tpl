{{/* The chart name, a DNS label. */}}
{{- define "portcullis.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* <release>-<chart>, or the release name when it already contains the chart name. */}}
{{- define "portcullis.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "portcullis.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 | trimSuffix "-" }}
{{ include "portcullis.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "portcullis.selectorLabels" -}}
app.kubernetes.io/name: {{ include "portcullis.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The labels of the pods Portcullis runs in: its own Deployment's, or the AgentOS pods'. */}}
{{- define "portcullis.podSelector" -}}
{{- if eq .Values.mode "sidecar" }}
{{- toYaml .Values.sidecar.podSelector }}
{{- else }}
{{- include "portcullis.selectorLabels" . }}
{{- end }}
{{- end }}

{{/* "true" when Portcullis joins the AgentOS pod as a native sidecar (an init container). */}}
{{- define "portcullis.nativeSidecar" -}}
{{- if and (eq .Values.mode "sidecar") .Values.sidecar.native }}true{{ end }}
{{- end }}

{{- define "portcullis.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "portcullis.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "portcullis.image" -}}
{{- $repository := required "image.repository is required" .Values.image.repository }}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "portcullis.upstreamUrl" -}}
{{- if eq .Values.mode "sidecar" }}
{{- default "http://127.0.0.1:7777" .Values.upstream.url }}
{{- else }}
{{- default "http://agentos:7777" .Values.upstream.url }}
{{- end }}
{{- end }}

{{/* "true" when the secret is given inline or by reference. */}}
{{- define "portcullis.hasSecurityKey" -}}
{{- if or .Values.securityKey.value .Values.securityKey.existingSecret.name }}true{{ end }}
{{- end }}
{{- define "portcullis.hasVerificationKey" -}}
{{- if or .Values.jwt.verificationKey.value .Values.jwt.verificationKey.existingSecret.name }}true{{ end }}
{{- end }}
{{- define "portcullis.hasJwks" -}}
{{- if or .Values.jwt.jwks.value .Values.jwt.jwks.existingSecret.name }}true{{ end }}
{{- end }}

{{/* "true" when service accounts use PostgreSQL rather than the embedded store. */}}
{{- define "portcullis.hasDatabase" -}}
{{- if or .Values.database.url .Values.database.existingSecret.name }}true
{{- else }}
{{- with .Values.config.database }}{{ if .url }}true{{ end }}{{ end }}
{{- end }}
{{- end }}

{{/* "true" when the embedded store is in use (service accounts on, no database). */}}
{{- define "portcullis.embeddedStore" -}}
{{- if and .Values.config.service_accounts.enabled (not (include "portcullis.hasDatabase" .)) }}true{{ end }}
{{- end }}

{{/* "true" when the chart's own Secret has something to hold. */}}
{{- define "portcullis.ownSecret" -}}
{{- if or .Values.securityKey.value .Values.jwt.verificationKey.value .Values.jwt.jwks.value .Values.database.url }}true{{ end }}
{{- end }}

{{/* What the chart's Secret and the secret references contain: a change rolls the pods. */}}
{{- define "portcullis.secretInputs" -}}
{{ toYaml .Values.securityKey }}
{{ toYaml .Values.jwt }}
{{ toYaml .Values.database }}
{{- end }}

{{/*
"true" when the gateway reloads its config file itself (config.server.watch_config): a ConfigMap
change then reaches the pods without a restart, so it does not roll them.
*/}}
{{- define "portcullis.watchConfig" -}}
{{- with .Values.config.server }}{{ if .watch_config }}true{{ end }}{{ end }}
{{- end }}

{{/*
Sidecar mode, networkPolicy.otherPorts: open: the AgentOS pods' ports other than AgentOS's own
(networkPolicy.backend.port) and the gateway's two, as NetworkPolicyPort list items: the TCP
ranges between the three (endPort) and every UDP port. The three ports, sorted, are low < mid < high.
*/}}
{{- define "portcullis.otherPorts" -}}
{{- $low := int .Values.ports.proxy }}
{{- $mid := int .Values.ports.admin }}
{{- $high := int .Values.networkPolicy.backend.port }}
{{- if gt $low $mid }}{{ $swap := $low }}{{ $low = $mid }}{{ $mid = $swap }}{{ end }}
{{- if gt $mid $high }}{{ $swap := $mid }}{{ $mid = $high }}{{ $high = $swap }}{{ end }}
{{- if gt $low $mid }}{{ $swap := $low }}{{ $low = $mid }}{{ $mid = $swap }}{{ end }}
{{- if gt $low 1 }}
- protocol: TCP
  port: 1
  endPort: {{ sub $low 1 }}
{{- end }}
{{- if lt (add1 $low) $mid }}
- protocol: TCP
  port: {{ add1 $low }}
  endPort: {{ sub $mid 1 }}
{{- end }}
{{- if lt (add1 $mid) $high }}
- protocol: TCP
  port: {{ add1 $mid }}
  endPort: {{ sub $high 1 }}
{{- end }}
{{- if lt $high 65535 }}
- protocol: TCP
  port: {{ add1 $high }}
  endPort: 65535
{{- end }}
- protocol: UDP
{{- end }}
