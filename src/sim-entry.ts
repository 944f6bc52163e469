// `import { startSimulator } from 'gbatch/sim'`: the gateway simulator `gbatch sim` serves, for a
// program's own tests. A separate entry, so importing 'gbatch' does not load it.
export { startSimulator, type Simulator, type SimulatorOptions, type Ledger } from './sim/index.js';
