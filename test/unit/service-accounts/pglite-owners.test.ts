// Runs in a test process of its own: embedded stores, open until the end (scripts/test-groups.ts).
import t from 'tap'
import { runResourceOwnersContract } from '../../contract/service-account-store.js'
import { embeddedContractDatabases } from '../../helpers/embedded-contract.js'

// A file of its own: every test opens a PGlite of its own, seconds each on a busy machine.
const embedded = await embeddedContractDatabases(t)
runResourceOwnersContract(t, () => embedded.database())
