"""Writes of the HR area, one module per topic (employees, leave, time, onboarding, reviews,
training, policies, grievances, hiring). Each checks the actor's permission and the area's rules
and writes all or nothing; logs carry ids."""
