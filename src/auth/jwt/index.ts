export { JwtVerifier, type JwtVerifierDependencies } from './jwt-verifier.js'
export {
  JWT_FAILURE_REASONS,
  webSocketJwtError,
  type JwtFailureReason,
  type WebSocketJwtError,
} from './jwt-errors.js'
export type { JwksReloadResult, JwksReloadTrigger } from './jwks-file.js'
export { LEEWAY_SECONDS, type VerifyJws } from './key-order.js'
