/**
 * Runs what the Dockerfile runs, without Docker: each stage gets a temporary root directory,
 * and its COPY, WORKDIR, ENV and RUN instructions are carried out there, from a build context
 * made of the repository's files minus .dockerignore. RUN commands are emulated one by one; a
 * command this file does not know fails, so a Dockerfile change cannot go unverified.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { childEnv, PROJECT_ROOT } from '../../helpers/child-process.js'
import type { Teardown } from '../../helpers/gateway.js'

export interface Instruction {
  readonly keyword: string
  readonly args: string
  readonly line: number
}

export interface Stage {
  readonly name: string | undefined
  readonly base: string
  readonly instructions: Instruction[]
}

/** Stages and their instructions; comments and line continuations handled. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = []
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const start = index + 1
    let line = lines[index] as string
    if (/^\s*(#|$)/.test(line)) continue
    while (line.endsWith('\\') && index + 1 < lines.length)
      line = `${line.slice(0, -1)} ${lines[++index] ?? ''}`
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line)
    if (match === null) throw new Error(`Dockerfile:${start}: cannot read ${line}`)
    const keyword = (match[1] as string).toUpperCase()
    const args = (match[2] as string).trim()
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)
      if (from === null) throw new Error(`Dockerfile:${start}: FROM ${args}`)
      stages.push({ base: from[1] as string, name: from[2], instructions: [] })
      continue
    }
    const stage = stages.at(-1)
    if (stage === undefined) throw new Error(`Dockerfile:${start}: ${keyword} before FROM`)
    stage.instructions.push({ keyword, args, line: start })
  }
  return stages
}

/** .dockerignore patterns as anchored regular expressions (each also excludes what is below it). */
export function dockerignore(text: string): RegExp[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      if (pattern.startsWith('!'))
        throw new Error(`.dockerignore exceptions are not emulated: ${pattern}`)
      const body = pattern
        .replace(/^\/+|\/+$/g, '')
        .split(/(\*\*|\*|\?)/)
        .map((part) =>
          part === '**'
            ? '.*'
            : part === '*'
              ? '[^/]*'
              : part === '?'
                ? '[^/]'
                : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('')
      return new RegExp(`^${body}(/.*)?$`)
    })
}

/** The build context: the working tree's files (tracked or not ignored by git) minus .dockerignore. */
export function buildContext(t: Teardown): string {
  const ignored = dockerignore(readFileSync(join(PROJECT_ROOT, '.dockerignore'), 'utf8'))
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '-z'],
    {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    },
  )
    .split('\0')
    .filter((path) => path !== '' && existsSync(join(PROJECT_ROOT, path)))
  const context = temporaryDir(t, 'portcullis-context-')
  for (const path of listed) {
    if (ignored.some((pattern) => pattern.test(path))) continue
    mkdirSync(dirname(join(context, path)), { recursive: true })
    cpSync(join(PROJECT_ROOT, path), join(context, path))
  }
  return context
}

export function temporaryDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code === 0) resolve()
      else
        reject(
          new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.slice(-4000)}`),
        )
    })
  })
}

/** A stage being built: its root directory stands for the image's `/`. */
export class StageBuild {
  readonly root: string
  workdir = '/'
  user = 'root'
  readonly env: Record<string, string> = {}
  /** Build arguments in scope (ARG), for RUN commands. */
  readonly args: Record<string, string> = {}
  entrypoint: string[] = []
  cmd: string[] = []
  healthcheck: string[] | undefined
  readonly exposed: number[] = []
  /** RUN commands deliberately not carried out here, with why. */
  readonly skipped: string[] = []

  constructor(root: string) {
    this.root = root
  }

  /** The host path of an image path (relative ones are relative to WORKDIR). */
  path(imagePath: string): string {
    return join(this.root, imagePath.startsWith('/') ? imagePath : join(this.workdir, imagePath))
  }
}

/**
 * Carries out one stage. `stages` are the stages built so far (for COPY --from); npm commands
 * reuse the host's npm cache (offline when it can) and run in parallel with nothing else.
 */
export async function buildStage(
  stage: Stage,
  build: StageBuild,
  context: string,
  stages: ReadonlyMap<string, StageBuild>,
  buildArgs: Readonly<Record<string, string>> = {},
): Promise<void> {
  for (const { keyword, args, line } of stage.instructions) {
    const where = `Dockerfile:${line}`
    switch (keyword) {
      case 'WORKDIR':
        build.workdir = args.startsWith('/') ? args : join(build.workdir, args)
        mkdirSync(build.path(build.workdir), { recursive: true })
        break
      case 'ARG': {
        // Seen by the stage's RUN commands only (ENV persists into the image; ARG does not).
        const [key = '', ...value] = args.split('=')
        if (/\s/.test(args)) throw new Error(`${where}: ARG ${args} (one NAME[=default])`)
        build.args[key] = buildArgs[key] ?? value.join('=')
        break
      }
      case 'ENV':
        for (const pair of args.split(/\s+/)) {
          const [key, ...value] = pair.split('=')
          if (value.length === 0) throw new Error(`${where}: ENV ${args} (use KEY=value)`)
          build.env[key as string] = value.join('=')
        }
        break
      case 'COPY':
        copy(args, build, context, stages, where)
        break
      case 'RUN':
        for (const command of args.split('&&').map((part) => part.trim()))
          await runCommand(command, build, where)
        break
      case 'USER':
        build.user = args
        break
      case 'EXPOSE':
        build.exposed.push(...args.split(/\s+/).map(Number))
        break
      case 'ENTRYPOINT':
        build.entrypoint = JSON.parse(args) as string[]
        break
      case 'CMD':
        build.cmd = JSON.parse(args) as string[]
        break
      case 'HEALTHCHECK': {
        const exec = /\bCMD\s+(\[.*\])$/.exec(args)
        if (exec === null) throw new Error(`${where}: HEALTHCHECK must use the exec form`)
        build.healthcheck = JSON.parse(exec[1] as string) as string[]
        break
      }
      default:
        throw new Error(
          `${where}: ${keyword} is not emulated by test/integration/ops/dockerfile.ts`,
        )
    }
  }
}

function copy(
  args: string,
  build: StageBuild,
  context: string,
  stages: ReadonlyMap<string, StageBuild>,
  where: string,
): void {
  const words = args.split(/\s+/)
  let source = context
  while (words[0]?.startsWith('--') === true) {
    const flag = words.shift() as string
    const from = /^--from=(.+)$/.exec(flag)
    if (from === null) throw new Error(`${where}: COPY ${flag} is not emulated`)
    const stage = stages.get(from[1] as string)
    if (stage === undefined) throw new Error(`${where}: no stage ${from[1]}`)
    source = stage.root
  }
  const destination = words.pop() as string
  const intoDir = destination.endsWith('/') || words.length > 1
  for (const item of words) {
    const from = source === context ? join(context, item) : join(source, item)
    if (!existsSync(from))
      throw new Error(
        `${where}: COPY ${item}: not in the ${source === context ? 'build context' : 'stage'}`,
      )
    const target = intoDir
      ? join(build.path(destination), item.split('/').at(-1) as string)
      : build.path(destination)
    mkdirSync(dirname(target), { recursive: true })
    cpSync(from, target, { recursive: statSync(from).isDirectory() })
  }
}

async function runCommand(command: string, build: StageBuild, where: string): Promise<void> {
  const words = command.split(/\s+/)
  const cwd = build.path(build.workdir)
  const env = { ...childEnv(), ...build.args, ...build.env }
  if (command === 'npm cache clean --force') {
    build.skipped.push(
      `${command} (it would empty this machine's npm cache; it only makes the image smaller)`,
    )
  } else if (words[0] === 'npm' && words[1] === 'ci') {
    await run('npm', [...words.slice(1), '--prefer-offline', '--no-audit', '--no-fund'], cwd, env)
  } else if (words[0] === 'npm' && words[1] === 'run') {
    await run('npm', words.slice(1), cwd, env)
  } else if (words[0] === 'mkdir' && words[1] === '-p') {
    for (const dir of words.slice(2)) mkdirSync(build.path(dir), { recursive: true })
  } else if (words[0] === 'chown' && words.length === 3) {
    if (!existsSync(build.path(words[2] as string)))
      throw new Error(`${where}: chown of a missing path`)
    build.skipped.push(`${command} (needs root; the test's own user owns the directory)`)
  } else {
    throw new Error(
      `${where}: RUN ${command} is not emulated by test/integration/ops/dockerfile.ts`,
    )
  }
}
