/**
 * A plain node:crypto RS256 verify in a loop: the public key is a KeyObject made once, the signed
 * part and the signature are decoded once, so each iteration is the signature check alone.
 * Run: node --import tsx bench/scenarios/rsa-verify-child.ts '<RsaVerifySpec as JSON>'
 * Prints one JSON RsaVerifyResult line (CPU and wall time per verify, medians over the trials).
 */
import { createPublicKey, verify } from 'node:crypto'
import { median } from '../lib/stats.js'
import type { RsaVerifyResult } from '../lib/types.js'
import type { RsaVerifySpec } from './rsa-verify.js'

const spec = JSON.parse(process.argv[2] ?? '{}') as RsaVerifySpec
const key = createPublicKey(spec.publicKeyPem)
const dot = spec.token.lastIndexOf('.')
const signed = Buffer.from(spec.token.slice(0, dot))
const signature = Buffer.from(spec.token.slice(dot + 1), 'base64url')

function verifyTimes(count: number): void {
  for (let n = 0; n < count; n++) {
    if (!verify('sha256', signed, key, signature)) throw new Error('the token did not verify')
  }
}

verifyTimes(spec.warmup)
const cpu: number[] = []
const wall: number[] = []
for (let trial = 0; trial < spec.trials; trial++) {
  const started = performance.now()
  const before = process.cpuUsage()
  verifyTimes(spec.iterations)
  const used = process.cpuUsage(before)
  wall.push(((performance.now() - started) * 1000) / spec.iterations)
  cpu.push((used.user + used.system) / spec.iterations)
}
const out: RsaVerifyResult = {
  cpuUsPerVerify: median(cpu),
  wallUsPerVerify: median(wall),
  iterations: spec.iterations,
  trials: spec.trials,
}
process.stdout.write(`${JSON.stringify(out)}\n`)
