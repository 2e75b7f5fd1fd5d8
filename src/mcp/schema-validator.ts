import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

/**
 * The MCP client's JSON Schema validator (it checks a tool's structuredContent against the tool's outputSchema), with
 * the SDK's own ajv validator loaded the first time a server lists a tool that has an output schema, not at every start.
 *
 * The SDK's Client makes an ajv instance with every format in its constructor; ajv, ajv-formats and fast-uri are 80%
 * of the MCP client's code, and a run whose servers declare no output schema never uses them (issue 21: a one-turn run
 * -0.5 MiB peak RSS, -6% CPU; bench/ab.ts). build-plugins.ts (mcpDefaultValidatorStub) stubs the Client's eager import
 * of the validator in the binary, so only this lazy require reaches it. Same validator, same options, same messages:
 * only when it loads changes.
 */
export function lazySchemaValidator(): jsonSchemaValidator {
  let real: jsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      // require, not import(): getValidator is synchronous. The bundler puts the package in a chunk of its own, read here.
      real ??= new (require("@modelcontextprotocol/sdk/validation/ajv") as typeof import("@modelcontextprotocol/sdk/validation/ajv")).AjvJsonSchemaValidator();
      return real.getValidator<T>(schema);
    },
  };
}
