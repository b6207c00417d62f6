// Plain JavaScript, no build step: every way to define a tool, and the error each gives.
import { BaseTool, Toolset, defineTool, tool } from '@anytool/core';

const outcomes = [];
function attempt(make) {
  try {
    make();
    outcomes.push(null);
  } catch (error) {
    outcomes.push({ code: error.code, message: error.message });
  }
}

class Weather {
  forecast(city, days = 3, unit = 'celsius') {
    return `${city} ${days} ${unit}`;
  }
}
defineTool(Weather, 'forecast', { description: 'Forecast for a city.' });

function search(query, limit = 5) {
  return `${query} ${limit}`;
}

class Clock extends BaseTool {
  execute() {
    return 'now';
  }
}

attempt(() => new Toolset(new Weather()));
attempt(() => tool(search));
attempt(() => tool((a, b) => a * b));
attempt(() => new Toolset(new Clock()));
process.stdout.write(JSON.stringify(outcomes));
