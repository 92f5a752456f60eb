import Courier

#if !XML
#error("CourierXML needs the package trait \"XML\": add it to the traits of your Courier dependency.")
#endif

/// Placeholder until this product lands.
enum CourierXMLPlaceholder {}
