; JavaScript (and JSX) definitions.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
; Class expressions: named (`x = class Foo {}` defines Foo), and assigned
; to a member (`X.Template = class extends Y {}` defines Template,
; `module.exports = class {}` exports).
(class name: (identifier) @name) @definition.class
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: (class)) @definition.class
; Object literal members that are functions: {name: function () {}}.
(pair key: (property_identifier) @name value: (function_expression)) @definition.method
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field

(lexical_declaration (variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
(variable_declaration (variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration
  (variable_declarator name: (identifier) @name) @definition.variable)))

(assignment_expression
  left: (member_expression object: (identifier) @container property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition.function

;; references

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(jsx_opening_element name: (identifier) @name) @reference.call
(jsx_self_closing_element name: (identifier) @name) @reference.call
(class_heritage (identifier) @name) @reference.type
