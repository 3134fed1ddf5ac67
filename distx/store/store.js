"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.StoreUnavailableError = exports.Store = void 0;
class Store {
    overrideListeners = new Set();
    onOverridesChanged(listener) {
        this.overrideListeners.add(listener);
        return () => this.overrideListeners.delete(listener);
    }
    notifyOverridesChanged() {
        for (const listener of this.overrideListeners)
            listener();
    }
}
exports.Store = Store;
class StoreUnavailableError extends Error {
    constructor(message = 'The data store cannot be reached', options) {
        super(message, options);
        this.name = 'StoreUnavailableError';
    }
}
exports.StoreUnavailableError = StoreUnavailableError;
//# sourceMappingURL=store.js.map