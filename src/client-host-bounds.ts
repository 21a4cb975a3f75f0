// How long one command for one host is given before it says which host did not answer: read by the
// transport's welcome (client-failures.ts), ssh's ConnectTimeout (client-ssh.ts) and a command run
// there (client-host-command.ts). Its own file, as the ssh layer and the failures' lines both need it.

/**
 * How long one command for one host (`--host H ls`, `peek H:1`, `--host H status`) is given: ssh,
 * the bridge or the fleetcom there and its daemon, perhaps started there, which on a loaded host takes seconds.
 */
export const SINGLE_HOST_WELCOME_MS = 30_000;

/** FLEETCOM_HOST_TIMEOUT_MS when it is a positive whole number (tests on a loaded machine), else undefined. */
export function hostTimeoutSetting(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.FLEETCOM_HOST_TIMEOUT_MS?.trim();
  return raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
}

/** The one-host bound: FLEETCOM_HOST_TIMEOUT_MS when set, else SINGLE_HOST_WELCOME_MS. */
export function oneHostBoundMs(env: NodeJS.ProcessEnv = process.env): number {
  return hostTimeoutSetting(env) ?? SINGLE_HOST_WELCOME_MS;
}
