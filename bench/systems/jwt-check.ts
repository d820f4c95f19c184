import { httpRequest } from '../lib/net.js'

/** What a JWT-checking system is started with, and a token it must accept and one it must refuse. */
export interface JwtCheck {
  readonly publicKeyPem: string
  readonly validToken: string
  /** The valid token with a forged signature. */
  readonly forgedToken: string
}

/** Proves the check is real: a forged signature and a missing token must both be refused. */
export async function checkVerification(
  baseUrl: string,
  jwt: JwtCheck,
  what: string,
): Promise<void> {
  const forged = await httpRequest(`${baseUrl}/agents/bench-agent`, {
    headers: { authorization: `Bearer ${jwt.forgedToken}` },
  })
  const missing = await httpRequest(`${baseUrl}/agents/bench-agent`)
  if (![401, 403].includes(forged.status) || ![401, 403].includes(missing.status)) {
    throw new Error(
      `${what} is not verifying: a forged token got ${forged.status}, no token ${missing.status}`,
    )
  }
}
