import { claim, type Payload } from './jwt-claims.js'
import { invalidToken } from './jwt-errors.js'

/**
 * `iss` must be exactly `issuer` (auth.oidc_issuer), with PyJWT's checks and texts: absent,
 * not a string, or another issuer.
 */
export function checkIssuer(payload: Payload, issuer: string): void {
  const value = claim(payload, 'iss')
  if (value === undefined) throw invalidToken('jwt.issuer', 'Token is missing the "iss" claim')
  if (typeof value !== 'string') {
    throw invalidToken('jwt.issuer', 'Payload Issuer (iss) must be a string')
  }
  if (value !== issuer) throw invalidToken('jwt.issuer', 'Invalid issuer')
}
