/** A boolean switch from the environment ("1"/"true"/"on" vs "0"/"false"/"off"), else the setting, else the default. */
export function switchedOn(envValue: string | undefined, setting: boolean | undefined, dflt: boolean): boolean {
  const v = envValue?.trim().toLowerCase();
  if (v === "1" || v === "true" || v === "on" || v === "yes") return true;
  if (v === "0" || v === "false" || v === "off" || v === "no") return false;
  return setting ?? dflt;
}
