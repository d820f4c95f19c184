{{/*
The Portcullis container, as a list item: the Deployment's only container in ingress mode, the
container added to the AgentOS pod in sidecar mode (NOTES.txt prints it), there by default a
native sidecar (an init container that restarts: `restartPolicy: Always`).
*/}}
{{- define "portcullis.container" -}}
- name: portcullis
  image: {{ include "portcullis.image" . | quote }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  {{- if include "portcullis.nativeSidecar" . }}
  restartPolicy: Always
  {{- end }}
  args:
    - serve
    - --config
    - /etc/portcullis/config/portcullis.yaml
  ports:
    - name: gateway
      containerPort: {{ int .Values.ports.proxy }}
      protocol: TCP
    - name: gateway-admin
      containerPort: {{ int .Values.ports.admin }}
      protocol: TCP
  env:
    - name: PORTCULLIS_UPSTREAM_URL
      value: {{ include "portcullis.upstreamUrl" . | quote }}
    - name: PORTCULLIS_PORT
      value: {{ int .Values.ports.proxy | quote }}
    - name: PORTCULLIS_ADMIN_PORT
      value: {{ int .Values.ports.admin | quote }}
    {{- if include "portcullis.hasSecurityKey" . }}
    - name: OS_SECURITY_KEY
      valueFrom:
        secretKeyRef:
          {{- with .Values.securityKey.existingSecret }}
          name: {{ default (include "portcullis.fullname" $) .name }}
          key: {{ if .name }}{{ .key }}{{ else }}security-key{{ end }}
          {{- end }}
    {{- end }}
    {{- if include "portcullis.hasVerificationKey" . }}
    - name: JWT_VERIFICATION_KEY
      valueFrom:
        secretKeyRef:
          {{- with .Values.jwt.verificationKey.existingSecret }}
          name: {{ default (include "portcullis.fullname" $) .name }}
          key: {{ if .name }}{{ .key }}{{ else }}verification-key{{ end }}
          {{- end }}
    {{- end }}
    {{- if include "portcullis.hasJwks" . }}
    - name: JWT_JWKS_FILE
      value: {{ printf "%s/jwks.json" .Values.jwt.jwks.mountPath | quote }}
    {{- end }}
    {{- if or .Values.database.url .Values.database.existingSecret.name }}
    - name: DATABASE_URL
      valueFrom:
        secretKeyRef:
          {{- with .Values.database.existingSecret }}
          name: {{ default (include "portcullis.fullname" $) .name }}
          key: {{ if .name }}{{ .key }}{{ else }}database-url{{ end }}
          {{- end }}
    {{- end }}
    {{- if include "portcullis.embeddedStore" . }}
    - name: PORTCULLIS_DATA_DIR
      value: {{ printf "%s/db" .Values.persistence.mountPath | quote }}
    {{- end }}
    {{- with .Values.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  livenessProbe:
    httpGet:
      path: /healthz
      port: gateway-admin
    {{- toYaml .Values.probes.liveness | nindent 4 }}
  readinessProbe:
    httpGet:
      path: /readyz
      port: gateway-admin
    {{- toYaml .Values.probes.readiness | nindent 4 }}
  startupProbe:
    httpGet:
      path: /healthz
      port: gateway-admin
    {{- toYaml .Values.probes.startup | nindent 4 }}
  {{- /* A native sidecar's preStop runs only after AgentOS has exited, when the endpoints are long gone. */}}
  {{- if and .Values.preStopSleepSeconds (not (include "portcullis.nativeSidecar" .)) }}
  lifecycle:
    preStop:
      exec:
        command: ["sleep", {{ int .Values.preStopSleepSeconds | quote }}]
  {{- end }}
  resources:
    {{- toYaml .Values.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: portcullis-config
      mountPath: /etc/portcullis/config
      readOnly: true
    - name: portcullis-tmp
      mountPath: /tmp
    {{- if include "portcullis.hasJwks" . }}
    - name: portcullis-jwks
      mountPath: {{ .Values.jwt.jwks.mountPath }}
      readOnly: true
    {{- end }}
    {{- if include "portcullis.embeddedStore" . }}
    - name: portcullis-data
      mountPath: {{ .Values.persistence.mountPath }}
    {{- end }}
    {{- with .Values.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/*
The volumes the container mounts, as list items, named `portcullis-*`: the sidecar patch merges
them into the AgentOS pod by name, where a volume of AgentOS's own could otherwise be replaced.
*/}}
{{- define "portcullis.volumes" -}}
- name: portcullis-config
  configMap:
    name: {{ include "portcullis.fullname" . }}
- name: portcullis-tmp
  emptyDir: {}
{{- if include "portcullis.hasJwks" . }}
- name: portcullis-jwks
  secret:
    {{- with .Values.jwt.jwks.existingSecret }}
    secretName: {{ default (include "portcullis.fullname" $) .name }}
    items:
      - key: {{ if .name }}{{ .key }}{{ else }}jwks.json{{ end }}
        path: jwks.json
    {{- end }}
{{- end }}
{{- if include "portcullis.embeddedStore" . }}
- name: portcullis-data
  {{- if .Values.persistence.enabled }}
  persistentVolumeClaim:
    claimName: {{ default (printf "%s-data" (include "portcullis.fullname" .)) .Values.persistence.existingClaim }}
  {{- else }}
  emptyDir: {}
  {{- end }}
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}
