import CourierXML
import Testing

@Test func placeholderXMLLinks() {}
