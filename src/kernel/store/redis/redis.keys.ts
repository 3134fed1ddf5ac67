/**
 * Every Redis key of the service, after the client's key prefix (`tis:` by default). The layout is
 * the one Redis Cluster needs, and the same on a single Redis and under Sentinel:
 *
 *   {h:<sha256>}                 string  a secret's hash -> its key id (the current secret, and a
 *                                        rotated-out one while its grace runs)
 *   {<id>}:record                hash    the key's record
 *   {<id>}:quota:<UTC day>       string  credits counted that day (expires after 91 days)
 *   {<id>}:month:<YYYY-MM>       string  credits counted that UTC month (expires 35 days after
 *                                        its first call)
 *   {<id>}:tools:<UTC day>       hash    `<tool>:calls|credits|failed` of that day (91 days)
 *   {<id>}:runspent:<run id>     hash    what a run of the subject spent: `spent`, `tool:<tool>`
 *   {<id>}:ledger, {<id>}:ledger:ids   hash, zset  the subject's ledger entries (src/ledger/)
 *   {<id>}:ledger:day:<UTC day>  hash    `credits`, `entries`: what its entries of that day sum to
 *                                        (expires after 8 days)
 *   {<run id>}:run               hash    a run's record (src/runs/); {rh:<sha256>} its token's lookup
 *   {<id>}:runs, {<id>}:runs:active   zset  the subject's runs (by id), its active ones (by expiry)
 *   {runs}:index, {runs}:ends    zset    every run by id (time), and by when it ends
 *   {ledger}:index               zset    `<entry id> <subject>` of every entry (by time)
 *   {ledger}:subjects:<UTC day>  hash    subject -> its entries of that day in the index (8 days)
 *   {<id>}:rate:<throttler>:bucket  hash  the key's rate-limit token bucket (src/limits/)
 *   {<id>}:idem, {<id>}:idem:expiry, {<id>}:idem:bytes   idempotency entries, their expiry
 *                                        times, the bytes they count
 *   {keys}:index                 zset    `<created_at> <id>` of every key, for the ordered list
 *   {principals}:index           zset    `<first_seen_at> <id>` of every OAuth principal
 *                                        (a principal's own keys are a key's: record, quota, ...)
 *   {principals}:lock:<name>     string  held by the instance doing that work on principals
 *                                        (the start-up merge of records of one subject)
 *   {keys}:initial-lock          string  held by the instance creating the first admin key
 *   {<inv id>}:invocation        hash    a long-running call (expires 24 hours after it ends)
 *   {<caller id>}:invocations    zset    `<created_at> <id>` of a caller's long-running calls
 *   {invocations}:all            zset    `<created_at> <id>` of every caller's (operators' list)
 *   {invocations}:active         hash    invocation id -> the instance running it, while it runs
 *   {instance:<id>}              string  an instance's lease: present while it runs its calls
 *   {audit}:seq, {audit}:log     string, zset  the audit trail
 *   {webhooks}:endpoint:<wh id>  hash    a webhook endpoint's record (field -> JSON value)
 *   {webhooks}:endpoints         zset    score = created_at (ms), member = id: every endpoint
 *   {webhooks}:dlv:<dlv id>      hash    a webhook delivery, its event and attempts (field -> JSON)
 *   {webhooks}:of:<wh id>        zset    an endpoint's delivery ids (score 0, by id: by time)
 *   {webhooks}:due:<wh id>       zset    score = when due (ms), member = delivery id: an endpoint's
 *                                        pending deliveries; a claim moves the score to its lease's end
 *   {webhooks}:pending:<wh id>   zset    the same deliveries by age (score 0, by id): the oldest
 *                                        fail first past its backlog's cap
 *   {webhooks}:due               zset    an earlier version's due set of every endpoint: moved into
 *                                        the endpoints' own at a sender's start
 *   {webhooks}:marks:<marker>    string  a marker set once (its expiry, ms), see markOnce
 *   {sources}:all                hash    a source made through the API -> `<version> <record JSON>`
 *   {sources}:revision           string  moved on by every write of a source (src/sources/)
 *   config:overrides             hash    configuration key -> JSON value
 *   {<throttler key>:<throttler>}:hits|blocked  other throttler counters (failed authentications)
 *
 * Key ids are `key_<16 hex>` and principal ids `prn_<32 hex>`, so a caller's own keys share the
 * hash tag `{key_…}` or `{prn_…}`: its record, quota,
 * rate and idempotency keys live in one Cluster slot, and every script that touches several of
 * them runs on one node. The key index and the audit log are one slot each; a secret's lookup is a
 * slot of its own (known before the key id is). Every webhook key shares the hash tag `{webhooks}`:
 * the outbox's scripts reach a delivery's record from its id (a key-name base passed as a key).
 */
const tag = (id: string) => `{${id}}`;

export const RedisKeys = {
  hashLookup: (hash: string) => `{h:${hash}}`,
  record: (id: string) => `${tag(id)}:record`,
  quota: (id: string, day: string) => `${tag(id)}:quota:${day}`,
  monthlyQuota: (id: string, month: string) => `${tag(id)}:month:${month}`,
  toolUsage: (id: string, day: string) => `${tag(id)}:tools:${day}`,
  /** What a run of the subject spent (`spent`, `tool:<tool>`), in the subject's slot. */
  runSpending: (id: string, runId: string) => `${tag(id)}:runspent:${runId}`,
  /** The base of a key's rate-limit bucket; the rate storage appends `:<throttler>:bucket`. */
  rate: (id: string) => `${tag(id)}:rate`,
  idempotency: (id: string): [entries: string, expiry: string, bytes: string] => [
    `${tag(id)}:idem`,
    `${tag(id)}:idem:expiry`,
    `${tag(id)}:idem:bytes`,
  ],
  /** The SCAN patterns of every caller's idempotency expiry set (the purge's way to every caller). */
  idempotencyExpiryPatterns: ['{key_*}:idem:expiry', '{prn_*}:idem:expiry'],
  invocation: (id: string) => `${tag(id)}:invocation`,
  invocationsOf: (callerId: string) => `${tag(callerId)}:invocations`,
  activeInvocations: '{invocations}:active',
  allInvocations: '{invocations}:all',
  instanceLease: (instance: string) => `{instance:${instance}}`,
  keyIndex: '{keys}:index',
  principalIndex: '{principals}:index',
  principalsLock: (name: string) => `{principals}:lock:${name}`,
  initialKeyLock: '{keys}:initial-lock',
  auditSeq: '{audit}:seq',
  auditLog: '{audit}:log',
  overrides: 'config:overrides',
  webhookEndpoint: (id: string) => `{webhooks}:endpoint:${id}`,
  /** What an endpoint's id follows in its record's key. */
  webhookEndpointBase: '{webhooks}:endpoint:',
  webhookEndpoints: '{webhooks}:endpoints',
  webhookDelivery: (id: string) => `{webhooks}:dlv:${id}`,
  /** What a delivery's id follows in its key: scripts given it reach any delivery. */
  webhookDeliveryBase: '{webhooks}:dlv:',
  webhookDeliveriesOf: (endpointId: string) => `{webhooks}:of:${endpointId}`,
  /** What an endpoint's id follows in its delivery list's key. */
  webhookDeliveriesOfBase: '{webhooks}:of:',
  webhookDueOf: (endpointId: string) => `{webhooks}:due:${endpointId}`,
  webhookDueBase: '{webhooks}:due:',
  webhookPendingOf: (endpointId: string) => `{webhooks}:pending:${endpointId}`,
  webhookPendingBase: '{webhooks}:pending:',
  /** The earlier layout's one due set (every endpoint's): read only to move what it holds. */
  webhookEarlierDue: '{webhooks}:due',
  webhookMark: (marker: string) => `{webhooks}:marks:${marker}`,
  sources: '{sources}:all',
  sourcesRevision: '{sources}:revision',
} as const;

/**
 * An entry of the key index, `(created_at, id)`, or of the principal index, `(first_seen_at, id)`:
 * sorts by time, then id (ISO times all have one length).
 */
export function indexMember(
  position: { created_at: string; id: string } | { first_seen_at: string; id: string },
): string {
  const at = 'created_at' in position ? position.created_at : position.first_seen_at;
  return `${at} ${position.id}`;
}

export function idOfIndexMember(member: string): string {
  return member.slice(member.indexOf(' ') + 1);
}
