import Foundation

// courier-bench: Courier against the bare clients it wraps, interleaved in one
// run. Flags: --json (JSON array on stdout), --quick (short run),
// --only http|pipeline|gzip|cache|download (one item, e.g. for profiling).

let arguments = CommandLine.arguments

if let index = arguments.firstIndex(of: "--child-download"), arguments.count > index + 2,
   let url = URL(string: arguments[index + 2]) {
    try await DownloadChild.run(side: arguments[index + 1], url: url)
    exit(0)
}

let json = arguments.contains("--json")
let quick = arguments.contains("--quick")
let only = arguments.firstIndex(of: "--only").flatMap { arguments.count > $0 + 1 ? arguments[$0 + 1] : nil }
func wanted(_ item: String) -> Bool { only == nil || only == item }

let server = try await BenchServer.start()
log("server: \(BenchServer.description), \(server.baseURL.absoluteString)")
var rows: [Row] = []

if wanted("http") {
    log("items 1-2: HTTP over loopback")
    let clients = ClientSet(baseURL: server.baseURL)
    rows += try await HTTPBenchmarks(clients: clients, quick: quick).run()
    await clients.shutdown()
}
if wanted("pipeline") {
    log("item 3: pipeline on a stub transport")
    rows += try await PipelineBenchmark(quick: quick).run()
}
if wanted("gzip") {
    log("item 4: gzip")
    rows += try GzipBenchmark(quick: quick).run()
}
if wanted("cache") {
    log("item 5: cache hits")
    rows += try await CacheBenchmark(quick: quick).run()
}
if wanted("download") {
    log("item 6: download to file")
    rows += try DownloadBenchmark(baseURL: server.baseURL, quick: quick).run()
}
await server.shutdown()

if json {
    print(try Report.json(rows))
} else {
    print("server: \(BenchServer.description)")
    print("ratio = courier / bare (req/s and MB/s: higher is better; us, ns, allocs, MiB: lower is better)")
    print(Report.table(rows))
}
