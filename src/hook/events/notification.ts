import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 Notification; the matcher sees `notification_type`. */
export const notificationInput = once(() => inputSchema("Notification", {
  message: z.string(),
  title: z.string().optional(),
  notification_type: z.string(),
}));

export const notificationOutput = once(() => outputSchema("Notification", { additionalContext: z.string().optional() }));

/** Cannot block; `systemMessage` is discarded (contracts §1.6). */
export const mergeNotification = (results: HandlerResult[]) => mergeBase(results, { canBlock: false, discardSystemMessage: true });

export const notification: EventSpec<"Notification"> = {
  name: "Notification",
  input: notificationInput,
  output: notificationOutput,
  canBlock: false,
  matchField: "notification_type",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeNotification,
};
