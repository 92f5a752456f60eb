@testable import Courier
import Foundation

/// The streamed-body parsers: lines (LF, CRLF, CR), server-sent events and
/// RS-separated records, fed the input whole and again in two chunks split
/// where the first byte says. Both readings must agree, no line or event may
/// pass its limit, nothing may trap, and after every element the splitter
/// holds no more than the chunk it reads and one element not yet ended
/// (twice the limit, for an array's growth): its memory follows the input
/// still pending, never the longest line it saw before.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    let split = input.isEmpty ? 0 : Int(bytes[0]) % (input.count + 1)
    let whole = read(input, chunks: [input[...]])
    let halves = read(input, chunks: [input[..<split], input[split...]])
    precondition(whole == halves, "split at \(split) changed the reading")
    return 0
}

private struct Reading: Equatable {
    var lines: [[UInt8]] = []
    var lineFailure = false
    var events: [ServerSentEvent] = []
    var eventFailure = false
    var records: [[UInt8]] = []
    var recordFailure = false
}

private let limit = 64

/// Every element of `chunks`, pulled one at a time, with the memory
/// invariant checked after each.
private func elements(_ splitter: inout LineSplitter, chunk: ArraySlice<UInt8>, _ take: ([UInt8]) -> Void) {
    splitter.feed(Data(chunk))
    while let element = splitter.next() {
        precondition(splitter.heldBytes <= chunk.count + 2 * limit + 32,
                     "holds \(splitter.heldBytes) bytes for a chunk of \(chunk.count)")
        take(element)
    }
    precondition(splitter.heldBytes <= 2 * limit + 32, "holds \(splitter.heldBytes) bytes once the chunk is read")
}

private func read(_ input: [UInt8], chunks: [ArraySlice<UInt8>]) -> Reading {
    var reading = Reading()
    var lines = LineSplitter(maximumLength: limit)
    var eventLines = LineSplitter(maximumLength: limit)
    var parser = ServerSentEventParser(maximumDataLength: limit)
    var records = LineSplitter(maximumLength: limit, boundary: .separator(0x1E))
    for chunk in chunks {
        elements(&lines, chunk: chunk) { reading.lines.append($0) }
        if !reading.eventFailure {
            elements(&eventLines, chunk: chunk) { line in
                guard !reading.eventFailure else { return }
                do {
                    if let event = try parser.parse(line: line) { reading.events.append(event) }
                } catch {
                    reading.eventFailure = true
                }
            }
        }
        elements(&records, chunk: chunk) { reading.records.append($0) }
    }
    reading.lineFailure = lines.overflow != nil
    reading.eventFailure = reading.eventFailure || eventLines.overflow != nil
    reading.recordFailure = records.overflow != nil
    if let last = lines.finish() { reading.lines.append(last) }
    if let last = records.finish() { reading.records.append(last) }
    precondition(reading.lines.allSatisfy { $0.count <= limit })
    precondition(reading.records.allSatisfy { $0.count <= limit })
    precondition(reading.events.allSatisfy { $0.data.utf8.count <= limit * 3 })
    return reading
}
