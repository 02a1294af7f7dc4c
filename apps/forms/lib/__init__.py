"""What the Form Builder is built on that checks no permission: fields and their JSON Schema,
conditions, answers' validation, uploads' types, the submission's PDF."""
