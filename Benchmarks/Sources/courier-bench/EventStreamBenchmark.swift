import Courier
import Foundation

/// Item 6c: server-sent events parsed as they arrive. 100,000 small events
/// (`data: {"index":N}`) in 16 KiB chunks, from a transport that hands them
/// over at once, read through `StreamedResponse.serverSentEvents`, against
/// a bare loop that splits the same chunks into lines and gathers each
/// event's `data`. Rounds alternate the order; the second bare run is the
/// noise floor.
struct EventStreamBenchmark {
    let quick: Bool

    private var eventCount: Int { quick ? 20_000 : 100_000 }

    func run() async throws -> [Row] {
        let chunks = Self.chunks(events: eventCount)
        let provider = Provider<URLTarget>(transport: ChunkTransport(chunks: chunks))
        let target = URLTarget(url: URL(string: "http://events.invalid/")!)
        var rates: [String: [Double]] = [:]
        let sides = ["courier", "bare", "bare again"]
        for round in 0..<(quick ? 2 : 7) {
            for index in 0..<sides.count {
                let side = sides[(index + round) % sides.count]
                let start = ContinuousClock.now
                let count: Int
                if side == "courier" {
                    var seen = 0
                    for try await event in try await provider.stream(target).serverSentEvents where !event.data.isEmpty {
                        seen += 1
                    }
                    count = seen
                } else {
                    count = Self.bareEvents(in: chunks)
                }
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                guard count == eventCount else { throw ChildFailure(side: side, output: "\(count) events") }
                rates[side, default: []].append(Double(count) / seconds)
            }
        }
        log("  events per second: courier \(Int(median(rates["courier"] ?? []))), bare \(Int(median(rates["bare"] ?? [])))")
        return [Row(name: "server-sent events, \(eventCount / 1000)k small", unit: "events/s",
                    courier: median(rates["courier"] ?? []), bare: median(rates["bare"] ?? []),
                    bareAgain: median(rates["bare again"] ?? []), higherIsBetter: true)]
    }

    private static func chunks(events: Int) -> [Data] {
        var text = Data()
        for index in 0..<events { text.append(contentsOf: Array("data: {\"index\":\(index)}\n\n".utf8)) }
        return stride(from: 0, to: text.count, by: 16 << 10).map { text[$0..<min($0 + (16 << 10), text.count)] }
    }

    /// What a hand-written reader does: split on LF, take `data:` lines,
    /// and make each event's data a string at the blank line that ends it
    /// (no CR, comments, `id`, `event` or `retry`, which Courier's parser
    /// handles).
    private static func bareEvents(in chunks: [Data]) -> Int {
        var line: [UInt8] = []
        var data: [UInt8] = []
        var count = 0
        for chunk in chunks {
            for byte in chunk {
                guard byte == 0x0A else {
                    line.append(byte)
                    continue
                }
                if line.isEmpty {
                    // The event's data as the caller wants it: a string.
                    let text = String(decoding: data, as: UTF8.self)
                    if !text.isEmpty { count += 1 }
                    data.removeAll(keepingCapacity: true)
                } else if line.starts(with: Array("data:".utf8)) {
                    data.append(contentsOf: line.dropFirst(line.count > 5 && line[5] == 0x20 ? 6 : 5))
                }
                line.removeAll(keepingCapacity: true)
            }
        }
        return count
    }
}

/// Hands every request the same body, in the given chunks, at once.
private struct ChunkTransport: Transport {
    let chunks: [Data]

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        let (body, writer) = ResponseBody.makeStream()
        for chunk in chunks { writer.yield(chunk) }
        writer.finish()
        return TransportResponse(statusCode: 200, url: request.url, headerFields: ["Content-Type": "text/event-stream"], body: body)
    }
}
