import type { MathJsInstance, MathNode } from 'mathjs' with { 'resolution-mode': 'require' };

export type CalcResult =
  { readonly ok: true; readonly value: number; readonly text: string } | { readonly ok: false; readonly error: string };

/** Operators a `<calc>` expression may use (mathjs operator function names). */
const OPERATORS = new Set(['add', 'subtract', 'multiply', 'divide', 'unaryMinus', 'unaryPlus', 'pow', 'mod']);
/** Functions it may call; everything else (matrices, units, strings, parsing, imports) is refused. */
const FUNCTIONS = new Set([
  'sqrt',
  'cbrt',
  'abs',
  'round',
  'floor',
  'ceil',
  'min',
  'max',
  'exp',
  'log',
  'log10',
  'log2',
  'gcd',
  'lcm',
]);
const CONSTANTS = new Set(['pi', 'e']);

/** The fields of mathjs's node kinds read here (its `MathNode` union does not expose them). */
type NodeFields<Value> = MathNode & {
  value?: Value;
  fn?: unknown;
  args?: MathNode[];
  content?: MathNode;
  name?: string;
};

/**
 * The calculator behind `<calc>expr</calc>`: mathjs's parser and evaluator (never `eval`), hardened three ways:
 * 1. a restricted instance: `import`, `createUnit`, `evaluate`, `parse`, `compile`, `simplify`, `derivative`,
 *    `resolve` and friends are replaced by functions that throw (mathjs security docs);
 * 2. an allow-list over the parsed tree: numbers, + - * / ^ mod, parentheses, a few functions and pi/e —
 *    no symbols, assignments, property access, matrices, ranges, strings, units or function definitions;
 * 3. bounds: expression length, tree size, the magnitude of literals, of every intermediate part and of the result
 *    (a float64 evaluation cannot blow up memory or time; huge powers become Infinity, which is refused).
 */
export class SafeCalculator {
  static readonly MAX_EXPRESSION_CHARS = 200;
  static readonly MAX_NODES = 64;
  static readonly MAX_MAGNITUDE = 1e15;
  private static instance: SafeCalculator | undefined;

  private constructor(
    private readonly math: MathJsInstance,
    private readonly parse: (expression: string) => MathNode,
  ) {}

  /** One shared calculator per process (it holds no state); mathjs loads on first use (~1 s cold). */
  static shared(): SafeCalculator {
    if (!SafeCalculator.instance) {
      // Loaded lazily: the calculator-free env should not pay mathjs's start-up time.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mathjs = require('mathjs') as typeof import('mathjs', { with: { 'resolution-mode': 'require' } });
      const math = mathjs.create(mathjs.all as NonNullable<typeof mathjs.all>, { number: 'number' });
      const parse = math.parse.bind(math) as (expression: string) => MathNode;
      const refuse = (name: string) => () => {
        throw new Error(`Function ${name} is disabled`);
      };
      const disabled = [
        'import',
        'createUnit',
        'reviver',
        'evaluate',
        'parse',
        'parser',
        'compile',
        'simplify',
        'simplifyConstant',
        'simplifyCore',
        'derivative',
        'resolve',
        'rationalize',
      ];
      math.import(Object.fromEntries(disabled.map((name) => [name, refuse(name)])), { override: true });
      SafeCalculator.instance = new SafeCalculator(math, parse);
    }
    return SafeCalculator.instance;
  }

  /** Evaluates one expression; every failure is a message for the agent, never a throw. */
  evaluate(expression: string): CalcResult {
    const source = expression.trim();
    if (source.length === 0) return { ok: false, error: 'empty expression' };
    if (source.length > SafeCalculator.MAX_EXPRESSION_CHARS) {
      return { ok: false, error: `expression longer than ${SafeCalculator.MAX_EXPRESSION_CHARS} characters` };
    }
    let tree: MathNode;
    try {
      tree = this.parse(source);
    } catch (error) {
      return { ok: false, error: `cannot parse: ${(error as Error).message}` };
    }
    const refusal = this.check(tree, { nodes: 0 });
    if (refusal) return { ok: false, error: refusal };
    let value: number;
    try {
      value = this.value(tree, tree);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    if (Math.abs(value) > SafeCalculator.MAX_MAGNITUDE)
      return { ok: false, error: `the result is larger than ${SafeCalculator.MAX_MAGNITUDE}` };
    return { ok: true, value, text: formatResult(value) };
  }

  /** The first reason to refuse the tree, or undefined when every node is allowed. */
  private check(node: MathNode, budget: { nodes: number }): string | undefined {
    budget.nodes += 1;
    if (budget.nodes > SafeCalculator.MAX_NODES) return `expression has more than ${SafeCalculator.MAX_NODES} parts`;
    const any = node as NodeFields<unknown>;
    switch (node.type) {
      case 'ConstantNode':
        if (typeof any.value !== 'number') return 'only numbers are allowed';
        if (!(Math.abs(any.value) <= SafeCalculator.MAX_MAGNITUDE))
          return `numbers must be at most ${SafeCalculator.MAX_MAGNITUDE} in size`;
        return undefined;
      case 'ParenthesisNode':
        return this.check(any.content as MathNode, budget);
      case 'SymbolNode':
        return CONSTANTS.has(any.name ?? '') ? undefined : `unknown name "${any.name}" (only numbers, pi and e)`;
      case 'OperatorNode':
        if (!OPERATORS.has(String(any.fn))) return `operator ${(node as unknown as { op: string }).op} is not allowed`;
        return this.checkAll(any.args ?? [], budget);
      case 'FunctionNode': {
        const callee = any.fn as MathNode & { name?: string };
        if (callee.type !== 'SymbolNode' || !FUNCTIONS.has(callee.name ?? '')) {
          return `function ${callee.type === 'SymbolNode' ? `"${callee.name}" ` : ''}is not allowed (allowed: ${[...FUNCTIONS].join(', ')})`;
        }
        return this.checkAll(any.args ?? [], budget);
      }
      default:
        return `${node.type.replace(/Node$/, '').toLowerCase()} expressions are not allowed`;
    }
  }

  private checkAll(nodes: readonly MathNode[], budget: { nodes: number }): string | undefined {
    for (const child of nodes) {
      const refusal = this.check(child, budget);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /**
   * The value of an (already allowed) tree, node by node, so that every part must be a finite real number: a whole
   * that only hides a bad part is refused too. `tree.compile().evaluate()` answered `abs(sqrt(-1)) = 1`,
   * `abs(log(-1)) = 3.14159265359`, `min(1 / 0, 3) = 3` and `5 mod 0 = 5` (mathjs defines x mod 0 as x).
   */
  private value(node: MathNode, root: MathNode): number {
    const any = node as NodeFields<number>;
    switch (node.type) {
      case 'ConstantNode':
        return any.value as number;
      case 'ParenthesisNode':
        return this.value(any.content as MathNode, root);
      case 'SymbolNode':
        return (this.math as unknown as Record<string, number>)[any.name as string] as number;
      default: {
        const args = (any.args ?? []).map((child) => this.value(child, root));
        const name = node.type === 'OperatorNode' ? String(any.fn) : ((any.fn as { name: string }).name as string);
        if ((name === 'divide' || name === 'mod') && args[1] === 0) throw new Error('division by zero');
        const functions = this.math as unknown as Record<string, (...values: number[]) => unknown>;
        const result = (functions[name] as (...values: number[]) => unknown)(...args);
        const part = node === root ? 'the result' : `"${node.toString()}"`;
        if (typeof result !== 'number') throw new Error(`${part} is not a real number`);
        if (!Number.isFinite(result)) throw new Error(`${part} is undefined or too large`);
        // A float past 2^53 has lost digits, which a later step can leave in a small result: `10^17 + 1 - 10^17`
        // answered 0. Every part is held to the bound the result is.
        if (node !== root && Math.abs(result) > SafeCalculator.MAX_MAGNITUDE)
          throw new Error(`${part} is larger than ${SafeCalculator.MAX_MAGNITUDE}`);
        return result;
      }
    }
  }
}

/** Integers exactly; other values with 12 significant digits, so float noise (0.1 + 0.2) does not show. */
function formatResult(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number.parseFloat(value.toPrecision(12)));
}
