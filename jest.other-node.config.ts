import type { Config } from 'jest';
import config from './jest.config';
import unit from './jest.unit.config';

// What CI runs again on Node 22 and 24: the unit tests and the consumer tests in one jest
// run, so the two workers stay busy (the long consumer files run beside the unit files,
// not in a run of their own that ends waiting on its slowest file).
type Project = NonNullable<Config['projects']>[number] & object & { displayName?: unknown };

const consumer = (config.projects as Project[]).filter((project) => project.displayName === 'consumer');
if (consumer.length !== 1) throw new Error('jest.config.ts has no "consumer" project');

const otherNode: Config = { ...unit, projects: [...(unit.projects as Project[]), ...consumer] };

export default otherNode;
