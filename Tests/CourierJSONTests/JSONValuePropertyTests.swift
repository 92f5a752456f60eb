import CourierJSON
import CourierTestSupport
import Foundation
import Testing

private func randomString(_ rng: inout SeededGenerator) -> String {
    let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "€", "\u{2028}", "😀", "中"]
    let count = Int.random(in: 0...12, using: &rng)
    var scalars = String.UnicodeScalarView()
    for _ in 0..<count { scalars.append(pool.randomElement(using: &rng) ?? "a") }
    return String(scalars)
}

private func randomDouble(_ rng: inout SeededGenerator) -> Double {
    switch Int.random(in: 0..<4, using: &rng) {
    case 0: return Double.random(in: -1_000...1_000, using: &rng)
    case 1: return Double(Int.random(in: -1_000...1_000, using: &rng)) / 8
    case 2: return [Double.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.ulpOfOne, 1e300, 1e-300].randomElement(using: &rng) ?? 0
    default:
        while true {
            let value = Double(bitPattern: rng.next())
            if value.isFinite { return value }
        }
    }
}

private func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONValue {
    let choices = depth > 3 ? 5 : 7
    switch Int.random(in: 0..<choices, using: &rng) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &rng))
    case 2: return .integer(Int64.random(in: .min ... .max, using: &rng))
    case 3: return .double(randomDouble(&rng))
    case 4: return .string(randomString(&rng))
    case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    default:
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &rng) { members[randomString(&rng)] = randomValue(&rng, depth: depth + 1) }
        return .object(members)
    }
}

@Suite struct JSONValuePropertyTests {
    @Test(arguments: [UInt64(1), 42, 2026])
    func roundTripsThroughJSONEncoderAndDecoder(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for iteration in 0..<400 {
            let value = randomValue(&rng, depth: 0)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
            #expect(decoded == value, "seed \(seed), iteration \(iteration): \(value.compactDescription)")
            #expect(decoded.hashValue == value.hashValue)
        }
    }

    @Test(arguments: [UInt64(7), 99])
    func descriptionParsesBackToTheSameValue(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for iteration in 0..<400 {
            let value = randomValue(&rng, depth: 0)
            let parsed = try JSONDecoder().decode(JSONValue.self, from: Data(value.description.utf8))
            #expect(parsed == value, "seed \(seed), iteration \(iteration): \(value.compactDescription)")
        }
    }
}
