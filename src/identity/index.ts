export {
  AssertionSigner,
  type AssertionSettings,
  type AssertionSignerOptions,
} from './assertion-signer.js'
export { encodeIdHeaderValue, jsonHeaderValue } from './header-values.js'
export { IdentityEnforcer } from './identity-enforcer.js'
export type { IdentityConfig, IdentityPlan, PlanInput } from './identity-plan.js'
export { identityHeaders, USER_ID_HEADER } from './identity-headers.js'
export { MAX_MULTIPART_PARTS } from './body-pinning.js'
export {
  rewriteMultipart,
  type MultipartRewrite,
  type MultipartRewriteOptions,
} from './multipart-rewriter.js'
export type { AssertionAlgorithm } from './signing-keys.js'
