/**
 * The part of @anthropic-ai/sdk yoke calls: the base client and its Messages resource. Imported statically here (and
 * this module dynamically by provider.ts) so the bundler keeps only these: the package's default export builds every
 * resource (beta, files, skills, organization...), ~300 KB more of minified code in the binary and in memory at every
 * run, none of it called (issue 21: binary size and peak memory; test/build/bundle-contents.test.ts).
 */
import { BaseAnthropic, type ClientOptions } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";

export { APIConnectionError } from "@anthropic-ai/sdk/error";

/** A client with `messages` only, configured as the package's default `Anthropic` client would be. */
export function createMessagesClient(options: ClientOptions): { messages: Messages } {
  return { messages: new Messages(new BaseAnthropic(options)) };
}
