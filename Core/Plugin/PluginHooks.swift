import Foundation

/// The five hooks of a ``Plugin``, as a set.
struct PluginHooks: OptionSet, Sendable {
    let rawValue: UInt8

    static let prepare = PluginHooks(rawValue: 1 << 0)
    static let willSend = PluginHooks(rawValue: 1 << 1)
    static let intercept = PluginHooks(rawValue: 1 << 2)
    static let didReceive = PluginHooks(rawValue: 1 << 3)
    static let process = PluginHooks(rawValue: 1 << 4)
    static let all: PluginHooks = [.prepare, .willSend, .intercept, .didReceive, .process]

    /// The hooks' names, in the order of the pipeline.
    var names: [String] {
        [(PluginHooks.prepare, "prepare"), (.willSend, "willSend"), (.intercept, "intercept"), (.didReceive, "didReceive"),
         (.process, "process")].filter { contains($0.0) }.map(\.1)
    }
}

/// Which hooks of a provider's plugins are the protocol's defaults, so the
/// pipeline skips them: a hook a plugin does not write costs nothing (an
/// async call through a protocol costs tens of nanoseconds, and four plugins
/// that each write one hook would otherwise pay for twenty).
///
/// Swift cannot ask a conformance whether it wrote a method, so the first
/// calls tell. While the provider calls a hook of plugin `i`, it arms the
/// call's ``HookProbe`` with that hook and the plugin's dynamic type; a
/// default implementation reports itself to the probe, and counts only when
/// it runs for that type and hook. That report is always true: the default
/// runs for an instance of a type only when the type's witness for the hook
/// is the default. A hook that returns without a report is the plugin's own.
/// Once every hook of every plugin has been called under a probe, calls stop
/// making probes; so they do after ``learningCalls`` calls even when some hook
/// was never reached (a plugin whose `intercept` answers without calling
/// `next` keeps the rest of the chain from ever running), and a hook not
/// learnt by then is called, as a written one would be.
final class PluginHookLedger: Sendable {
    /// How many calls learn at most.
    static let learningCalls = 64

    private struct State {
        /// Per plugin: the hooks found to be defaults.
        var defaults: [PluginHooks]
        /// Per plugin: the hooks called under a probe so far.
        var known: [PluginHooks]
        var isComplete: Bool
        var callsRecorded = 0
    }

    private let state: Locked<State>

    init(pluginCount: Int) {
        state = Locked(State(defaults: Array(repeating: [], count: pluginCount),
                             known: Array(repeating: [], count: pluginCount),
                             isComplete: pluginCount == 0))
    }

    /// The hooks to skip for each plugin, and a probe for the call while some
    /// hook has not been called yet.
    func plan() -> (defaults: [PluginHooks], probe: HookProbe?) {
        let (defaults, isComplete) = state.withLock { ($0.defaults, $0.isComplete) }
        return (defaults, isComplete ? nil : HookProbe(pluginCount: defaults.count))
    }

    /// Takes in what a call's probe found.
    func record(_ probe: HookProbe) {
        let (called, defaulted) = probe.findings
        state.withLock { state in
            for index in state.known.indices {
                state.known[index].formUnion(called[index])
                state.defaults[index].formUnion(defaulted[index].intersection(called[index]))
            }
            state.callsRecorded += 1
            state.isComplete = state.callsRecorded >= Self.learningCalls || state.known.allSatisfy { $0 == .all }
        }
    }

    /// Whether calls still carry a probe (for tests).
    var isLearning: Bool {
        state.withLock { !$0.isComplete }
    }

    /// Per plugin, the hooks known to be defaults (for tests).
    var defaults: [PluginHooks] {
        state.withLock { $0.defaults }
    }
}

/// One call's record, while a provider still learns its plugins' hooks, of
/// which hooks it called and which of them were the defaults.
final class HookProbe: Sendable {
    private struct State {
        var armed: (index: Int, type: ObjectIdentifier, hook: PluginHooks)?
        var called: [PluginHooks]
        var defaulted: [PluginHooks]
    }

    private let state: Locked<State>

    init(pluginCount: Int) {
        state = Locked(State(called: Array(repeating: [], count: pluginCount),
                             defaulted: Array(repeating: [], count: pluginCount)))
    }

    /// Notes that the provider is about to call `hook` of plugin `index`.
    func arm(_ hook: PluginHooks, index: Int, plugin: any Plugin) {
        let type = ObjectIdentifier(Swift.type(of: plugin))
        state.withLock { state in
            state.armed = (index, type, hook)
            state.called[index].insert(hook)
        }
    }

    /// Called by the default implementation of `hook`, running for an
    /// instance of `type`.
    func reportDefault(_ hook: PluginHooks, type: ObjectIdentifier) {
        state.withLock { state in
            guard let armed = state.armed, armed.hook == hook, armed.type == type else { return }
            state.defaulted[armed.index].insert(hook)
        }
    }

    var findings: (called: [PluginHooks], defaulted: [PluginHooks]) {
        state.withLock { ($0.called, $0.defaulted) }
    }
}
