import CourierGzip
import Testing

@Test func placeholderGzipLinks() {}
