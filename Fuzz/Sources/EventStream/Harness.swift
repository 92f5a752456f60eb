@testable import Courier
import Foundation

/// The streamed-body parsers: lines (LF, CRLF, CR), server-sent events and
/// RS-separated records, fed the input whole and again in two chunks split
/// where the first byte says. Both readings must agree, no line or event may
/// pass its limit, and nothing may trap.
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

private func read(_ input: [UInt8], chunks: [ArraySlice<UInt8>]) -> Reading {
    let limit = 64
    var reading = Reading()
    var lines = LineSplitter(maximumLength: limit)
    var eventLines = LineSplitter(maximumLength: limit)
    var parser = ServerSentEventParser(maximumDataLength: limit)
    var records = RecordSplitter(separator: 0x1E, maximumLength: limit)
    for chunk in chunks {
        reading.lines += lines.append(chunk)
        if !reading.eventFailure {
            do {
                for line in eventLines.append(chunk) {
                    if let event = try parser.parse(line: line) { reading.events.append(event) }
                }
            } catch {
                reading.eventFailure = true
            }
        }
        reading.records += records.append(chunk)
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
