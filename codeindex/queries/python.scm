; Python definitions: classes, functions (methods inside classes), module
; and class level assignments.

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

(module (expression_statement
  (assignment left: (identifier) @name) @definition.variable))

(class_definition body: (block (expression_statement
  (assignment left: (identifier) @name) @definition.field)))

;; references

(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call
(class_definition superclasses: (argument_list (identifier) @name @reference.type))
(type (identifier) @name) @reference.type
