import { InvalidOptionsError } from '@turngym/core';
import type { Action } from '@turngym/spec';
import { META_ACTION_CATALOGUE, type Intent, type MetaAction } from './meta-actions';
import type { CustomMetaAction } from './seller-options';
import { removeInvisible } from './invisible-characters';
import { stripReasoning } from '@turngym/llm';

export type MetaActionParse = { ok: true; index: number; action: MetaAction } | { ok: false; reason: string };

/**
 * The commander's action set of one env: the chosen catalogue actions, then the custom ones, each an index
 * of the discrete space. A meta-action that behaves as a greeting is legal only as the opening move (a
 * second "hello" is not a sales move); everything else is always legal.
 */
export class MetaActionSet {
  readonly actions: readonly MetaAction[];
  readonly labels: readonly string[];
  private readonly byName = new Map<string, number>();

  constructor(builtIns: readonly Intent[], custom: readonly CustomMetaAction[], subject: string) {
    const actions: MetaAction[] = [...builtIns.map((id) => META_ACTION_CATALOGUE[id]), ...custom];
    if (actions.length === 0)
      throw new InvalidOptionsError(subject, [
        'options.actions and options.customActions together must offer at least one meta-action',
      ]);
    const problems: string[] = [];
    actions.forEach((action, index) => {
      // `parse` reads a string of digits as an index and the empty string as silence, so a custom id or label
      // of that form could never be chosen by its name: the digits would pick the built-in at that index.
      if (action.label.trim() === '') problems.push(`the label of meta-action "${action.id}" is blank`);
      for (const name of new Set([action.id, action.label.trim()])) {
        if (/^\d+$/.test(name))
          problems.push(`meta-action "${name}" would be read as an index: give its id and label a letter`);
      }
      for (const name of [action.id, action.label.trim().toLowerCase()]) {
        const other = this.byName.get(name);
        if (other !== undefined && other !== index)
          problems.push(`meta-action "${name}" is defined twice (options.actions / options.customActions)`);
        this.byName.set(name, index);
      }
    });
    if (problems.length > 0) throw new InvalidOptionsError(subject, [...new Set(problems)]);
    this.actions = actions;
    this.labels = actions.map((action) => action.label);
  }

  get size(): number {
    return this.actions.length;
  }

  /** Legal meta-actions at round `round` (0 = the opening move). */
  mask(round: number): boolean[] {
    return this.actions.map((action) => action.behavesAs !== 'greet' || round === 0);
  }

  /** An index, a numeric string, an id (`ask-doubts`) or a label (any case). */
  parse(action: Action): MetaActionParse {
    let index: number | undefined;
    if (typeof action === 'number') {
      if (!Number.isInteger(action) || action < 0 || action >= this.actions.length) {
        return { ok: false, reason: `meta-action index ${action} is out of range 0–${this.actions.length - 1}` };
      }
      index = action;
    } else if (typeof action === 'string') {
      // A reasoning model's <think>…</think> is not its choice: "<think>not 5, threats fail</think>3" is 3.
      const text = removeInvisible(stripReasoning(action).text).trim();
      const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
      // The line as `describe()` lists it ("3: ask which product requirements matter most"), which models copy.
      const listed = /^(\d+)\s*[:.)\-\u2013\u2014]\s*(\S.*)$/s.exec(text);
      const named = this.byName.get(text.toLowerCase());
      if (/^\d+$/.test(text)) {
        const value = Number(text);
        if (value >= this.actions.length)
          return { ok: false, reason: `meta-action index ${value} is out of range 0–${this.actions.length - 1}` };
        index = value;
      } else if (named !== undefined) {
        index = named;
      } else if (listed && this.listedIndex(listed[2] as string) === Number(listed[1])) {
        index = Number(listed[1]);
      } else {
        // A number and a label that disagree ("3: threaten the user") are refused: either could be meant.
        return {
          ok: false,
          reason: listed
            ? `"${shown}": the number and the label name different meta-actions (or none); give one`
            : `unknown meta-action "${shown}"`,
        };
      }
    } else {
      return { ok: false, reason: 'a meta-action is an index or a label' };
    }
    return { ok: true, index, action: this.actions[index] as MetaAction };
  }

  /** The index a label names, also with a sentence's closing full stop after it. */
  private listedIndex(label: string): number | undefined {
    const name = label.trim().toLowerCase();
    return this.byName.get(name) ?? this.byName.get(name.replace(/[.!]+$/, ''));
  }

  /** "0: greet the user", one per line, for prompts and feedback. */
  describe(mask?: readonly boolean[]): string {
    return this.actions
      .map((action, index) => `${index}: ${action.label}${mask && mask[index] === false ? ' (not now)' : ''}`)
      .join('\n');
  }
}
