import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

export interface GatewayBuild {
  /** The entry point to run: …/dist/main.js. */
  readonly main: string
  /** What was built, for the report. */
  readonly description: string
}

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
}

/**
 * The working tree: `npm run build` into dist/ (what the issue asks for). With `ref`: that commit's
 * sources exported into node_modules/.cache/portcullis-bench/<sha>/ and compiled there (a cache
 * that linters and the type check never see; packages resolve upwards to node_modules), so
 * unfinished edits in src/ can neither break nor change the measured gateway.
 */
export function buildGateway(
  root: string,
  ref: string | null,
  log: (line: string) => void,
): GatewayBuild {
  let sha = 'unknown'
  let dirty = false
  try {
    sha = git(root, ['rev-parse', '--short', ref ?? 'HEAD'])
    dirty = ref === null && git(root, ['status', '--porcelain', '--', 'src']) !== ''
  } catch {
    if (ref !== null) throw new Error(`cannot resolve git ref ${ref}`)
  }
  if (ref === null) {
    log('building the gateway from the working tree (npm run build)…')
    try {
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] })
    } catch (error) {
      throw new Error(
        'npm run build failed: the working tree does not compile (try --ref HEAD to measure the last commit)',
        { cause: error },
      )
    }
    return {
      main: join(root, 'dist', 'main.js'),
      description: `working tree at ${sha}${dirty ? ' with uncommitted changes in src/' : ''}`,
    }
  }
  const dir = join(root, 'node_modules', '.cache', 'portcullis-bench', sha)
  const main = join(dir, 'dist', 'main.js')
  if (!existsSync(main)) {
    log(`building the gateway from ${ref} (${sha}) in ${dir}…`)
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // The embedded store's template, at the commits that ship one (a first start unpacks it).
    const shipped = git(root, ['ls-tree', '--name-only', sha, 'store-template']) !== ''
    const files = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']
    if (shipped) files.push('store-template')
    const archive = execFileSync('git', ['archive', '--format=tar', sha, ...files], {
      cwd: root,
      maxBuffer: 256 * 1024 * 1024,
    })
    execFileSync('tar', ['-x', '-C', dir], { input: archive })
    execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    })
  }
  return { main, description: `commit ${sha} (${ref})` }
}
