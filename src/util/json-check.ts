/**
 * A yes-or-"ask zod" check of a JSON value against a JSON Schema that zod generated from one of our schemas
 * (`z.toJSONSchema`, committed beside it). It answers only when it is sure, with the value as zod's parse would give
 * it (a loose object's known keys first, in the schema's order, then the others as read: the settings merge compares
 * hook groups by their JSON text). A keyword, type or shape it does not know answers NOT_SURE, and the caller asks
 * zod, which gives the same value or the message naming the field. It exists so a start reads settings and MCP
 * server entries without importing zod and building its schemas (~14 ms of CPU before the first MCP server could be
 * spawned, issue 21); ajv would cost more than zod. Pure, never throws.
 */
export type JsonSchemaNode = Record<string, unknown>;

export const NOT_SURE: unique symbol = Symbol("not sure");

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

// The keywords this checker understands; any other keyword in a schema node makes it answer NOT_SURE.
const KNOWN = new Set(["$schema", "type", "properties", "additionalProperties", "propertyNames", "items", "enum", "const", "anyOf", "exclusiveMinimum", "minimum", "maximum", "minLength", "required", "description"]);

/** The value as zod's parse gives it when the schema surely accepts it, else NOT_SURE. */
export function checkJson(schema: JsonSchemaNode, v: unknown): unknown {
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) return NOT_SURE;
  if (schema.const !== undefined && v !== schema.const) return NOT_SURE;
  if (schema.enum !== undefined && !(Array.isArray(schema.enum) && schema.enum.includes(v))) return NOT_SURE;
  if (schema.anyOf !== undefined) {
    if (schema.type !== undefined || !Array.isArray(schema.anyOf)) return NOT_SURE;
    // zod's union gives the first option that parses.
    for (const s of schema.anyOf) {
      const out = isObj(s) ? checkJson(s, v) : NOT_SURE;
      if (out !== NOT_SURE) return out;
    }
    return NOT_SURE;
  }
  switch (schema.type) {
    case undefined:
      // The empty schema ({}: anything) is zod's for a loose object's unknown keys, which it keeps as read.
      return Object.keys(schema).every((k) => k === "$schema" || k === "description") ? v : NOT_SURE;
    case "string":
      return typeof v === "string" && (schema.minLength === undefined || (typeof schema.minLength === "number" && v.length >= schema.minLength)) ? v : NOT_SURE;
    case "boolean":
      return typeof v === "boolean" ? v : NOT_SURE;
    case "number":
    case "integer":
      if (typeof v !== "number" || !Number.isFinite(v) || (schema.type === "integer" && !Number.isSafeInteger(v))) return NOT_SURE;
      if (schema.exclusiveMinimum !== undefined && !(typeof schema.exclusiveMinimum === "number" && v > schema.exclusiveMinimum)) return NOT_SURE;
      if (schema.minimum !== undefined && !(typeof schema.minimum === "number" && v >= schema.minimum)) return NOT_SURE;
      if (schema.maximum !== undefined && !(typeof schema.maximum === "number" && v <= schema.maximum)) return NOT_SURE;
      return v;
    case "array": {
      if (!Array.isArray(v) || !isObj(schema.items)) return NOT_SURE;
      const out: unknown[] = [];
      for (const x of v) {
        const y = checkJson(schema.items, x);
        if (y === NOT_SURE) return NOT_SURE;
        out.push(y);
      }
      return out;
    }
    case "object":
      return checkObject(schema, v);
    default:
      return NOT_SURE;
  }
}

function checkObject(schema: JsonSchemaNode, v: unknown): unknown {
  if (!isObj(v) || Object.getPrototypeOf(v) !== Object.prototype) return NOT_SURE;
  // `__proto__` as an own key (JSON.parse makes one) is a case zod may treat otherwise: ask zod.
  if (Object.hasOwn(v, "__proto__")) return NOT_SURE;
  const props = schema.properties ?? {};
  const extra = schema.additionalProperties;
  if (!isObj(props) || !isObj(extra)) return NOT_SURE;
  if (schema.propertyNames !== undefined && !(isObj(schema.propertyNames) && Object.keys(schema.propertyNames).length === 1 && schema.propertyNames.type === "string")) return NOT_SURE;
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((k) => typeof k === "string" && Object.hasOwn(v, k)))) return NOT_SURE;
  const out: Record<string, unknown> = {};
  const put = (k: string, s: unknown) => {
    const x = v[k];
    // A key holding undefined cannot come from JSON; an optional key is simply absent.
    if (!isObj(s) || x === undefined) return false;
    const y = checkJson(s, x);
    if (y === NOT_SURE) return false;
    out[k] = y;
    return true;
  };
  // A loose object's own keys first, in the schema's order, then the others as read (zod's order); a record's as read.
  for (const k of Object.keys(props)) if (Object.hasOwn(v, k) && !put(k, props[k])) return NOT_SURE;
  for (const k of Object.keys(v)) if (!Object.hasOwn(props, k) && !put(k, extra)) return NOT_SURE;
  return out;
}
