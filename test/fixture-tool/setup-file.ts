import { startProcessesWithFixtureTool } from '../support/built';
import './register';

// The fixture-tool project (jest.fixture-tool.config.js): every suite runs with the fixture tool
// registered, in its own process and in those it starts.
startProcessesWithFixtureTool();
