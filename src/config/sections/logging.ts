import { z } from 'zod'

export const loggingSchema = z
  .strictObject({
    level: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('Minimum level of the JSON logs written to stdout.'),
    access_log: z
      .boolean()
      .default(true)
      .describe('One log line per request (id, method, canonical path, status, latency).'),
  })
  .prefault({})

export const corsSchema = z
  .strictObject({
    allowed_origins: z
      .array(z.string())
      .default([
        'http://localhost:3000',
        'https://agno.com',
        'https://www.agno.com',
        'https://app.agno.com',
        'https://os-stg.agno.com',
        'https://os.agno.com',
      ])
      .describe(
        "Origins that receive CORS headers on the gateway's own error responses (AgentOS's defaults). An empty list allows every origin.",
      ),
  })
  .prefault({})
