import t from 'tap'
import { runStoreContract } from '../../contract/service-account-store.js'
import { MemoryServiceAccountStore } from '../../helpers/memory-store.js'

// The fake the verifier tests use must keep the same contract as the real stores.
runStoreContract(t, async () => {
  const store = new MemoryServiceAccountStore()
  return { open: async () => store }
})
