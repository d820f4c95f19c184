import { fileURLToPath } from 'node:url'
import { runJsonChild } from '../load/generator.js'
import type { RsaVerifyResult } from '../lib/types.js'
import type { World } from './world.js'

const CHILD = fileURLToPath(new URL('./rsa-verify-child.ts', import.meta.url))

export interface RsaVerifySpec {
  /** The RS256 gateway's verification key (RSA-2048, PEM) and one token it signed. */
  readonly publicKeyPem: string
  readonly token: string
  readonly warmup: number
  readonly iterations: number
  readonly trials: number
}

/**
 * What one RSA-2048 RS256 signature check costs plain node:crypto on the core the gateways run
 * on, with the fresh-RS256 scenario's key: issue 14 target 5 bounds that scenario by it.
 */
export async function runRsaVerify(
  world: World,
  log: (line: string) => void,
  size: Pick<RsaVerifySpec, 'warmup' | 'iterations' | 'trials'> = FULL,
): Promise<RsaVerifyResult> {
  const material = world.jwt.get('RS256')
  if (material === undefined) throw new Error('no RS256 key was generated')
  const spec: RsaVerifySpec = {
    publicKeyPem: material.key.verification,
    token: material.repeated,
    ...size,
  }
  const cpus = world.pinning.sut
  const result = await runJsonChild<RsaVerifyResult>(CHILD, spec, cpus, 'RS256 verify loop').result
  log(
    `node:crypto RS256 verify: ${result.cpuUsPerVerify.toFixed(1)} µs CPU (${result.wallUsPerVerify.toFixed(1)} µs wall) per verify`,
  )
  return result
}

const FULL = { warmup: 1_000, iterations: 5_000, trials: 5 }

/** The same loop, shorter: a reading of the machine's speed between measurements. */
export const HOST_CHECK = { warmup: 500, iterations: 2_000, trials: 3 }
