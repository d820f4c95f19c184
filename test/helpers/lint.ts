import { ESLint, Linter } from 'eslint'
import tseslint from 'typescript-eslint'
import { PROJECT_ROOT, projectPath } from './project-root.js'

const SYNTAX_RULES = ['no-restricted-syntax', '@typescript-eslint/no-restricted-imports'] as const

let eslint: ESLint | undefined

/**
 * What `npm run lint` says about `code` if it were the file `file` (relative to the repository):
 * the syntax and import rules of eslint.config.js as they apply to that path (the type-aware
 * rules need a real file and are left out). Returns the messages.
 */
export async function lintAs(file: string, code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: PROJECT_ROOT })
  const config = (await eslint.calculateConfigForFile(file)) as Linter.Config
  const rules: Linter.RulesRecord = {}
  for (const name of SYNTAX_RULES) {
    const setting = config.rules?.[name]
    if (setting !== undefined) rules[name] = setting
  }
  const linter = new Linter({ configType: 'flat' })
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { '@typescript-eslint': tseslint.plugin as unknown as ESLint.Plugin },
        rules,
      },
    ],
    projectPath(file),
  )
  return messages.map((message) => message.message)
}
