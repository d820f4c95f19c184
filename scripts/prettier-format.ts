import { format, resolveConfig } from 'prettier'

/** Formats generated text the way `npm run lint` (prettier --check) wants the file at `path`. */
export async function formatLikePrettier(text: string, path: string): Promise<string> {
  const options = await resolveConfig(path)
  return format(text, { ...options, filepath: path })
}
