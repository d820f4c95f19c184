/** `portcullis --version` and the help texts. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { PROJECT_ROOT } from '../../helpers/child-process.js'
import { portcullis } from '../../helpers/cli.js'

void t.test('--version and the tokens subcommands’ help', async (t) => {
  const version = await portcullis(t, ['--version'])
  t.equal(version.code, 0)
  const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version: string
  }
  t.ok(version.stdout.startsWith(`${pkg.version} (commit `), version.stdout)
  const help = await portcullis(t, ['tokens', '--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /create \[options\] <name> +Mint a token for a new service account/)
  t.match(help.stdout, /list \[options\] +List service accounts/)
  t.match(help.stdout, /revoke \[options\] <name-or-id> +Revoke an account by name or id/)
  const top = await portcullis(t, ['--help'])
  t.match(top.stdout, /Exit codes:\n {2}0 {2}success\n {2}1 .*\n {2}2 .*\n {2}3 .*\n {2}4 /)
})
