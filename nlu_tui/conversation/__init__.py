"""Conversation tests: E2E test cases and test stories, their runs and scores."""
