import type { Tool } from "../types.ts";
import { editTool } from "./edit.ts";
import { multiEditTool } from "./multi-edit.ts";
import { notebookEditTool } from "./notebook-edit.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

export { editTool, multiEditTool, notebookEditTool, readTool, writeTool };

/** Read, Write, Edit, MultiEdit (legacy) and NotebookEdit (contracts §7.2). */
export const fileTools: Tool[] = [readTool, writeTool, editTool, multiEditTool, notebookEditTool];
