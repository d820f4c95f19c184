import { z } from 'zod'

/**
 * A secret is given inline, by environment variable name, or by file path (Kubernetes Secrets
 * mount as files). Resolution happens once, at load; the resolved string never reaches a log.
 */
export const secretRefSchema = z.union([
  z.string().min(1),
  z.strictObject({
    from_env: z.string().min(1).describe('Environment variable holding the secret.'),
  }),
  z.strictObject({ from_file: z.string().min(1).describe('File whose content is the secret.') }),
])

export type SecretRef = z.infer<typeof secretRefSchema>

export interface SecretSources {
  env: Readonly<Record<string, string | undefined>>
  readFile: (path: string) => string
}

/** Resolves a reference to its value, or returns an error message naming the source (not the value). */
export function resolveSecret(
  ref: SecretRef,
  sources: SecretSources,
): { value: string } | { error: string } {
  if (typeof ref === 'string') return { value: ref }
  if ('from_env' in ref) {
    const value = sources.env[ref.from_env]
    if (value === undefined || value === '') {
      return { error: `environment variable ${ref.from_env} is not set` }
    }
    return { value }
  }
  try {
    // Files written by editors and Secret mounts often end with a newline that is not part of the key.
    const value = sources.readFile(ref.from_file).replace(/\r?\n$/, '')
    if (value === '') return { error: `file ${ref.from_file} is empty` }
    return { value }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    return { error: `cannot read file ${ref.from_file} (${code})` }
  }
}
