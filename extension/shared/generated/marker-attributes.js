// @ts-check
// Generated from src/marker_attributes.rs; do not edit. A host test fails when this file is not what
// the generator writes; rewrite it with `cargo run -q -- generated-modules extension/shared/generated`.
//
// The attributes allwright itself sets on page elements for a moment, each with a random
// marker that one side sets and the other looks for; marker_attributes.rs says which side
// does what. Every one starts with MARKER_ATTRIBUTE_PREFIX.

export const MARKER_ATTRIBUTE_PREFIX = "data-allwright-";
export const TAB_MARKER_ATTRIBUTE = "data-allwright-tab";
export const INPUT_MARKER_ATTRIBUTE = "data-allwright-input";
export const DROP_MARKER_ATTRIBUTE = "data-allwright-drop";
export const TRUSTED_MARKER_ATTRIBUTE = "data-allwright-trusted";
export const SHADOW_HOST_MARKER_ATTRIBUTE = "data-allwright-shadow-host";
