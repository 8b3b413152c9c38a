; TypeScript definitions.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class name: (type_identifier) @name) @definition.class
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: (class !name)) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.module
(module name: (identifier) @name) @definition.module

(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
; Members of interfaces and of object types that a type alias names; the
; members of anonymous type literals (in parameters, return types) are not
; definitions.
(interface_body (method_signature name: (property_identifier) @name) @definition.method)
(type_alias_declaration value: (object_type (method_signature name: (property_identifier) @name) @definition.method))
(abstract_method_signature name: (property_identifier) @name) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.field))
(enum_body (property_identifier) @name @definition.constant)
(enum_assignment name: (property_identifier) @name) @definition.constant

(lexical_declaration (variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration
  (variable_declarator name: (identifier) @name) @definition.variable)))

;; references

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(type_identifier) @name @reference.type
