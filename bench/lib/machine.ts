import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cpus, release, totalmem } from 'node:os'
import { findPostgresBinaries } from '../../test/helpers/postgres.js'
import { loadAverage } from './proc.js'
import type { MachineInfo } from './types.js'

/** The absolute path of a command on PATH (or in sbin), or null. */
export function which(command: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']
  for (const dir of dirs) {
    const path = `${dir}/${command}`
    if (dir !== '' && existsSync(path)) return path
  }
  return null
}

function versionOf(command: string, args: string[], pattern: RegExp): string | null {
  const path = which(command)
  if (path === null) return null
  // nginx -v and wrk -v print to stderr, and wrk exits 1: read both streams, whatever the status.
  const run = spawnSync(path, args, { encoding: 'utf8' })
  return pattern.exec(`${run.stdout ?? ''}${run.stderr ?? ''}`)?.[1] ?? 'installed'
}

export interface Tools {
  readonly wrk: string | null
  readonly nginx: string | null
  readonly haproxy: string | null
  readonly taskset: string | null
  /** PostgreSQL's bin directory. */
  readonly postgres: string | null
}

export function detectTools(): Tools {
  return {
    wrk: which('wrk'),
    nginx: which('nginx'),
    haproxy: which('haproxy'),
    taskset: which('taskset'),
    postgres: findPostgresBinaries(),
  }
}

/** HAProxy's version as [major, minor], or null. */
export function haproxyVersion(): [number, number] | null {
  const text = versionOf('haproxy', ['-v'], /version (\d+\.\d+)/i)
  if (text === null) return null
  const [major = 0, minor = 0] = text.split('.').map(Number)
  return [major, minor]
}

export function describeMachine(tools: Tools): MachineInfo {
  const model = cpus()[0]?.model ?? 'unknown'
  const cores = cpus().length
  return {
    cpuModel: model,
    cores,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    tools: {
      wrk: versionOf('wrk', ['-v'], /wrk (\S+)/),
      nginx: versionOf('nginx', ['-v'], /nginx\/(\S+)/),
      haproxy: versionOf('haproxy', ['-v'], /version (\S+)/i),
      taskset: tools.taskset === null ? null : 'installed',
      postgresql:
        tools.postgres === null ? null : (/\/(\d+)\/bin$/.exec(tools.postgres)?.[1] ?? 'installed'),
      autocannon: autocannonVersion(),
    },
    loadAtStart: loadAverage(),
    loadAtEnd: [],
  }
}

function autocannonVersion(): string | null {
  try {
    const text = readFileSync(
      new URL('../../node_modules/autocannon/package.json', import.meta.url),
      'utf8',
    )
    return (JSON.parse(text) as { version?: string }).version ?? 'installed'
  } catch {
    return null
  }
}
