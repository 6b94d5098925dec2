export { ExampleEnv, EXAMPLE_TOOLS } from './example-env';
export { exampleOptionsSchema, validateExampleOptions, type ExampleOptions } from './example-options';
export { ExampleSolver } from './example-solver';
export { register } from './register';
