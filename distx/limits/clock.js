"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SystemClock = exports.Clock = void 0;
exports.utcDay = utcDay;
exports.nextUtcMidnight = nextUtcMidnight;
class Clock {
}
exports.Clock = Clock;
class SystemClock extends Clock {
    now() {
        return new Date();
    }
}
exports.SystemClock = SystemClock;
function utcDay(at) {
    return at.toISOString().slice(0, 10);
}
function nextUtcMidnight(at) {
    return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}
//# sourceMappingURL=clock.js.map