import t from 'tap'
import { Grants } from '../../../src/policy/grants.js'
import type { ResourceContext } from '../../../src/policy/catalogue/route-facts.js'

const satisfies = (
  scopes: readonly string[],
  requirement: string,
  context: ResourceContext | undefined,
  adminScope: string,
): boolean => new Grants(adminScope).satisfies(scopes, requirement, context)
const satisfiesAll = (
  scopes: readonly string[],
  requirements: readonly string[],
  context: ResourceContext | undefined,
  adminScope: string,
): boolean => new Grants(adminScope).satisfiesAll(scopes, requirements, context)
const accessibleIds = (
  scopes: readonly string[],
  family: string,
  actions: ReadonlySet<string>,
  adminScope: string,
): ReturnType<Grants['accessibleIds']> =>
  new Grants(adminScope).accessibleIds(scopes, family, actions)
import { testCatalogue } from '../../helpers/catalogue.js'

const matcher = testCatalogue()
const resourceContext = (path: string) => matcher.match('GET', path).context
import { ADMIN } from './helpers.js'

const ON_A1 = resourceContext('/agents/a1')
const LISTING = resourceContext('/agents')

void t.test('per-resource requirement (path id a1) against each caller scope shape', async (t) => {
  const cases: [string, boolean][] = [
    ['os:admin', true],
    ['agents:read', true],
    ['agents:*:read', true],
    ['agents:a1:read', true],
    ['agents:a2:read', false],
    ['agents:a1:run', false],
    ['teams:a1:read', false],
    ['agents:*', false],
    ['*:*', false],
    ['*:*:*', false],
    ['*', false],
    ['agent_os:admin', false],
    ['bogus', false],
    ['agents:a1:read:x', false],
  ]
  for (const [scope, expected] of cases) {
    t.equal(satisfies([scope], 'agents:read', ON_A1, ADMIN), expected, scope)
  }
})

void t.test('global requirement: global or wildcard, never a specific id', async (t) => {
  const cases: [string, boolean][] = [
    ['os:admin', true],
    ['agents:read', true],
    ['agents:*:read', true],
    ['agents:a1:read', false],
    ['agents:run', false],
    ['agents:*', false],
  ]
  for (const [scope, expected] of cases) {
    t.equal(satisfies([scope], 'agents:read', LISTING, ADMIN), expected, scope)
    t.equal(satisfies([scope], 'agents:read', undefined, ADMIN), expected, `${scope}, no context`)
  }
})

void t.test(
  '1.4: agents:run runs any agent and does not read; agents:*:run is a wildcard',
  async (t) => {
    t.ok(satisfies(['agents:run'], 'agents:run', ON_A1, ADMIN))
    t.ok(satisfies(['agents:*:run'], 'agents:run', undefined, ADMIN))
    t.notOk(satisfies(['agents:run'], 'agents:read', LISTING, ADMIN))
    t.notOk(satisfies(['agents:*'], 'agents:run', ON_A1, ADMIN), '`*` is not an action wildcard')
  },
)

void t.test('1.4/1.5: the legacy alias and the configurable admin scope', async (t) => {
  t.ok(satisfies(['system:read'], 'config:read', undefined, ADMIN))
  t.ok(satisfies(['config:read'], 'system:read', undefined, ADMIN))
  t.notOk(satisfies(['system:read'], 'registry:read', undefined, ADMIN))
  t.ok(satisfies(['agent_os:admin'], 'metrics:read', undefined, 'agent_os:admin'))
  t.notOk(satisfies(['agent_os:admin'], 'metrics:read', undefined, ADMIN))
  t.ok(satisfies(['agent_os:admin'], 'agent_os:admin', undefined, ADMIN), 'an ordinary scope')
  t.ok(satisfies(['os:admin'], 'bogus', undefined, ADMIN), 'admin satisfies even unknown shapes')
  t.notOk(satisfies(['bogus'], 'bogus', undefined, ADMIN), 'unknown shapes never match')
})

void t.test(
  'the quirk: 2-part requirements take the path family when the path has an id',
  async (t) => {
    t.ok(satisfies(['agents:a1:read'], 'knowledge:read', ON_A1, ADMIN))
    t.notOk(satisfies(['knowledge:read'], 'knowledge:read', ON_A1, ADMIN))
    t.ok(satisfies(['agents:read'], 'knowledge:read', ON_A1, ADMIN))
    t.ok(satisfies(['knowledge:read'], 'knowledge:read', LISTING, ADMIN), 'no id: no rewrite')
  },
)

void t.test('3-part requirements are used verbatim', async (t) => {
  t.ok(satisfies(['reports:r1:read'], 'reports:r1:read', undefined, ADMIN))
  t.ok(satisfies(['reports:read'], 'reports:r1:read', undefined, ADMIN))
  t.ok(satisfies(['reports:*:read'], 'reports:r1:read', ON_A1, ADMIN))
  t.notOk(satisfies(['reports:r2:read'], 'reports:r1:read', undefined, ADMIN))
  t.notOk(satisfies(['agents:a1:read'], 'reports:r1:read', ON_A1, ADMIN))
})

void t.test('several requirements are ANDed, each by any scope', async (t) => {
  const required = ['agents:read', 'sessions:read']
  t.ok(satisfiesAll(['agents:read', 'sessions:read'], required, undefined, ADMIN))
  t.notOk(satisfiesAll(['agents:read'], required, undefined, ADMIN))
  t.ok(satisfiesAll([], [], undefined, ADMIN), 'no requirement: allowed')
  t.ok(satisfiesAll(['os:admin'], required, undefined, ADMIN))
})

void t.test('accessibleIds: admin, global and wildcard give all; ids otherwise', async (t) => {
  const read = new Set(['read'])
  t.equal(accessibleIds(['os:admin'], 'agents', read, ADMIN), 'all')
  t.equal(accessibleIds(['agents:read'], 'agents', read, ADMIN), 'all')
  t.equal(accessibleIds(['agents:*:read'], 'agents', read, ADMIN), 'all')
  t.same(
    accessibleIds(['agents:a1:read', 'agents:a2:read'], 'agents', read, ADMIN),
    new Set(['a1', 'a2']),
  )
  t.same(accessibleIds(['agents:a1:run', 'teams:t1:read'], 'agents', read, ADMIN), new Set())
  t.same(
    accessibleIds(['agents:a1:run'], 'agents', new Set(['read', 'run']), ADMIN),
    new Set(['a1']),
  )
  t.same(accessibleIds(['bogus', 'agents:*'], 'agents', read, ADMIN), new Set())
})

void t.test('one instance asked again and again answers as a fresh one does', async (t) => {
  const contexts = ['/agents/a1', '/agents/a2', '/agents/a:b', '/agents/*', '/teams/t1', '/agents']
    .map(resourceContext)
    .concat([undefined])
  const lists: readonly (readonly string[])[] = [
    ['agents:read'],
    ['agents:a1:read'],
    ['agents:*:read'],
    ['teams:read', 'agents:a2:run'],
    ['agents:a:b:read'],
    ['os:admin'],
    [],
  ]
  const requirements = ['agents:read', 'agents:run', 'teams:read', 'agents:a1:read', 'unknown']
  for (const adminScope of ['os:admin', 'agents:a1:read']) {
    const shared = new Grants(adminScope)
    const wrong: string[] = []
    // Twice over: the second pass reads what the first one remembered.
    for (let pass = 0; pass < 2; pass++) {
      for (const scopes of lists) {
        for (const requirement of requirements) {
          for (const context of contexts) {
            const expected = satisfies([...scopes], requirement, context, adminScope)
            if (shared.satisfies(scopes, requirement, context) !== expected) {
              wrong.push(`${adminScope} ${scopes.join(',')} ${requirement} ${context?.id}`)
            }
          }
        }
      }
    }
    t.same(wrong, [], `admin scope ${adminScope}`)
  }
})
