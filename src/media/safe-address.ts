/**
 * Which addresses a download may connect to. An export is untrusted input: a URL (or a redirect)
 * pointing at 169.254.169.254 would fetch the machine's cloud credentials and publish them in the
 * bucket. So every address a name resolves to is checked, and the check runs inside the socket's own
 * `lookup`: the address checked is the address connected to, and a DNS answer that changes between
 * a check and the connection (rebinding) cannot pass.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** The code of the error a refused address gives; the download reads it as "refused", never retried. */
export const PRIVATE_ADDRESS_CODE = 'EMEDIA_PRIVATE_ADDRESS';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: cloud metadata services live here
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
] as const)
  blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/**
 * Never fetched, whatever `allowPrivateHosts` says: link-local ranges and the cloud metadata services
 * (AWS/GCP/Azure 169.254.169.254, ECS 169.254.170.2, AWS IPv6 fd00:ec2::254, Alibaba 100.100.100.200,
 * Oracle 192.0.0.192). No file of a chat export lives there; the machine's credentials do.
 */
const metadata = new BlockList();
metadata.addSubnet('169.254.0.0', 16, 'ipv4');
metadata.addAddress('100.100.100.200', 'ipv4');
metadata.addAddress('192.0.0.192', 'ipv4');
metadata.addSubnet('fe80::', 10, 'ipv6');
metadata.addAddress('fd00:ec2::254', 'ipv6');
metadata.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6'); // NAT64 of 169.254/16

/** An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is. */
function judge(address: string, list: BlockList, unknown: boolean): boolean {
  const family = isIP(address);
  if (family === 4) return list.check(address, 'ipv4');
  if (family !== 6) return unknown;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return list.check(mapped[1], 'ipv4');
  return list.check(address, 'ipv6');
}

/** Whether an IP address lies in a private, loopback, link-local or other non-public range. */
export function isPrivateAddress(address: string): boolean {
  return judge(address, blocked, true) || judge(address, metadata, true);
}

/** Whether an IP address is link-local or a cloud metadata service's: refused even for allowed names. */
export function isMetadataAddress(address: string): boolean {
  return judge(address, metadata, false);
}

export class PrivateAddressError extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;
  constructor(host: string, address: string) {
    // Only an address a file server may really have is worth allowing; the metadata ones never are.
    super(
      isMetadataAddress(address)
        ? `${host} resolves to ${address}, a link-local or cloud metadata address: never fetched`
        : `${host} resolves to ${address}, a private or local address (allow it by name in media.allowPrivateHosts)`,
    );
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that refuses private addresses unless the name is allowed. It answers in
 * the form asked (`all` or one address), as Node's happy-eyeballs connect asks for all.
 */
export function guardedLookup(allowedNames: ReadonlySet<string>) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = allowedNames.has(hostname.toLowerCase());
      // A metadata address is named first: its refusal is the one no setting lifts.
      const bad =
        addresses.find((a) => isMetadataAddress(a.address)) ??
        (allowed ? undefined : addresses.find((a) => isPrivateAddress(a.address)));
      if (bad) return callback(new PrivateAddressError(hostname, bad.address), []);
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (first === undefined)
        return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The check before a request, for what the socket's lookup never sees: an IP literal (net.connect
 * skips lookup for one), and a name that goes through a proxy (the proxy resolves it; this machine's
 * answer is checked, which a rebinding DNS could still change: the proxy is then the boundary).
 */
export async function checkHost(hostname: string, allowedNames: ReadonlySet<string>): Promise<void> {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = allowedNames.has(bare) || allowedNames.has(hostname.toLowerCase());
  if (isIP(bare)) {
    if (allowed ? isMetadataAddress(bare) : isPrivateAddress(bare)) throw new PrivateAddressError(hostname, bare);
    return;
  }
  const lookup = guardedLookup(allowedNames);
  await new Promise<void>((resolve, reject) =>
    lookup(bare, { all: true }, (err) => {
      // An allowed name is looked up only for a metadata address; a name that does not resolve is the
      // request's to report, as for any host ("cannot reach ...: check the URL").
      if (err && (!allowed || (err as { code?: string }).code === PRIVATE_ADDRESS_CODE)) reject(err);
      else resolve();
    }),
  );
}
