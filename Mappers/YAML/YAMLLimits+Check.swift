#if !YAML
#error("CourierYAML needs the package trait \"YAML\": add it to the traits of your Courier dependency.")
#endif

import Courier
import CYaml
import Foundation

extension YAMLLimits {
    /// Walks the parser's events for `data` without building a node, and
    /// throws at the first limit passed. A syntax error ends the walk
    /// quietly: Yams reports it next, with its position.
    /// - Throws: `MappingLimitExceeded` naming the limit.
    func check(_ data: Data) throws(MappingLimitExceeded) {
        var walk = Walk(limits: self)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        let exceeded = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> MappingLimitExceeded? in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            yaml_parser_set_input_string(&parser, base, bytes.count)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                do throws(MappingLimitExceeded) {
                    switch event.type {
                    case YAML_STREAM_END_EVENT:
                        return nil
                    case YAML_SCALAR_EVENT:
                        walk.leaf(anchor: Self.name(event.data.scalar.anchor))
                    case YAML_ALIAS_EVENT:
                        try walk.alias(Self.name(event.data.alias.anchor))
                    case YAML_SEQUENCE_START_EVENT:
                        try walk.open(anchor: Self.name(event.data.sequence_start.anchor))
                    case YAML_MAPPING_START_EVENT:
                        try walk.open(anchor: Self.name(event.data.mapping_start.anchor))
                    case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                        walk.close()
                    default:
                        break
                    }
                } catch {
                    return error
                }
            }
            return nil
        }
        if let exceeded { throw exceeded }
    }

    private static func name(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// The sizes and heights of the nodes seen so far: enough to know what
    /// each alias stands for without expanding it.
    private struct Walk {
        /// A sequence or mapping not yet closed.
        struct Open {
            var anchor: String?
            /// Nodes inside it so far, itself included, aliases expanded.
            var size = 1
            /// Levels of collections inside it so far, itself included.
            var height = 1
        }

        let limits: YAMLLimits
        var open: [Open] = []
        var anchored: [String: (size: Int, height: Int)] = [:]
        var expansion = 0

        init(limits: YAMLLimits) {
            self.limits = limits
        }

        mutating func leaf(anchor: String?) {
            if let anchor { anchored[anchor] = (1, 0) }
            add(size: 1, height: 0)
        }

        mutating func open(anchor: String?) throws(MappingLimitExceeded) {
            open.append(Open(anchor: anchor))
            if open.count > limits.maximumDepth { throw tooDeep }
        }

        mutating func close() {
            guard let closed = open.popLast() else { return }
            if let anchor = closed.anchor { anchored[anchor] = (closed.size, closed.height) }
            add(size: closed.size, height: closed.height)
        }

        /// An undefined alias counts as one node: Yams refuses it next.
        mutating func alias(_ name: String?) throws(MappingLimitExceeded) {
            let target = name.flatMap { anchored[$0] } ?? (1, 0)
            // `expansion` stays at most the limit, so this cannot overflow.
            expansion += target.size
            if expansion > limits.maximumAliasExpansion {
                throw MappingLimitExceeded(
                    limit: "YAMLLimits.maximumAliasExpansion", maximum: limits.maximumAliasExpansion,
                    reason: "has aliases that expand to more than \(limits.maximumAliasExpansion) nodes"
                )
            }
            if open.count + target.height > limits.maximumDepth { throw tooDeep }
            add(size: target.size, height: target.height)
        }

        private mutating func add(size: Int, height: Int) {
            guard !open.isEmpty else { return }
            open[open.count - 1].size += size
            open[open.count - 1].height = max(open[open.count - 1].height, height + 1)
        }

        private var tooDeep: MappingLimitExceeded {
            MappingLimitExceeded(
                limit: "YAMLLimits.maximumDepth", maximum: limits.maximumDepth,
                reason: "nests sequences and mappings deeper than \(limits.maximumDepth) levels"
            )
        }
    }
}
