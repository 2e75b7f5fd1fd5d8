/** An env switch is on unless unset, empty or one of 0/false/no/off (any case). Never throws. */
export const isTruthy = (v: string | undefined): boolean => !!v && !["0", "false", "no", "off", ""].includes(v.trim().toLowerCase());
