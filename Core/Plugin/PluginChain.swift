/// The provider's plugins, with which of the five hooks each one implements,
/// so that a hook a plugin leaves to its default costs a call nothing.
///
/// Swift cannot be asked whether a type's witness for a requirement is the
/// protocol extension's default, so the chain learns it once: every default
/// hook notes in the call's context that it ran for its plugin's type, and
/// after a plugin's first call of a hook the chain knows for good whether
/// that hook is the default (the witness is fixed per type) and, if it is,
/// never calls it again. A plugin that forwards to another plugin's hook is
/// told apart by its type, so a wrapper is never taken for its inner plugin.
struct PluginChain: Sendable {
    /// A set of the five hooks.
    struct Hooks: OptionSet, Sendable {
        let rawValue: UInt8
        static let prepare = Hooks(rawValue: 1 << 0)
        static let willSend = Hooks(rawValue: 1 << 1)
        static let intercept = Hooks(rawValue: 1 << 2)
        static let didReceive = Hooks(rawValue: 1 << 3)
        static let process = Hooks(rawValue: 1 << 4)
    }

    /// What is known of one plugin's hooks.
    struct Resolution: Sendable {
        /// The hooks whose witness is known, default or not.
        var known: Hooks = []
        /// The hooks known to be the default: never called.
        var skipped: Hooks = []

        func calls(_ hook: Hooks) -> Bool { !skipped.contains(hook) }
        func knows(_ hook: Hooks) -> Bool { known.contains(hook) }
    }

    let plugins: [any Plugin]
    private let resolutions: Locked<[Resolution]>

    init(_ plugins: [any Plugin]) {
        self.plugins = plugins
        self.resolutions = Locked(Array(repeating: Resolution(), count: plugins.count))
    }

    /// What is known now, read once per call (one lock; none without plugins).
    func current() -> [Resolution] {
        plugins.isEmpty ? [] : resolutions.current
    }

    /// After the first call of `hook` on the plugin at `index` returned:
    /// records whether its default ran, from the note it left in `context`.
    func learn(_ hook: Hooks, of index: Int, from context: RequestContext) {
        let isDefault = context.ranDefault(hook, of: ObjectIdentifier(type(of: plugins[index])))
        resolutions.withLock { resolutions in
            resolutions[index].known.insert(hook)
            if isDefault { resolutions[index].skipped.insert(hook) }
        }
    }
}
