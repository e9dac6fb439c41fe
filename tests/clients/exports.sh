#!/bin/sh
# libvmaf.so exports only the public vmaf_* API and carries SONAME libvmaf.so.3.
set -eu
lib=$1
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRW]/ {print $3}' | grep -v '^vmaf_' || true)
[ -z "$bad" ] || { echo "FAIL non-API symbols exported:"; echo "$bad"; exit 1; }
for f in vmaf_init vmaf_close vmaf_read_pictures vmaf_use_feature vmaf_write_output vmaf_version \
         vmaf_picture_alloc vmaf_picture_unref vmaf_feature_dictionary_set vmaf_feature_score_pooled \
         vmaf_preallocate_pictures vmaf_fetch_preallocated_picture vmaf_import_feature_score \
         vmaf_feature_score_at_index vmaf_feature_dictionary_free \
         vmaf_model_load vmaf_model_load_from_path vmaf_model_feature_overload vmaf_model_destroy \
         vmaf_model_collection_load vmaf_model_collection_load_from_path \
         vmaf_model_collection_feature_overload vmaf_model_collection_destroy \
         vmaf_use_features_from_model vmaf_use_features_from_model_collection \
         vmaf_score_at_index vmaf_score_at_index_model_collection vmaf_score_pooled \
         vmaf_score_pooled_model_collection \
         vmaf_opencl_device_count vmaf_opencl_device_info vmaf_opencl_state_init \
         vmaf_opencl_state_free; do
  nm -D --defined-only "$lib" | grep -q " T $f\$" || { echo "FAIL $f not exported"; exit 1; }
done
readelf -d "$lib" | grep -q 'SONAME.*libvmaf.so.3\]' || { echo "FAIL SONAME"; exit 1; }
echo "exports: $(nm -D --defined-only "$lib" | grep -c ' T vmaf_') public functions, nothing else; SONAME libvmaf.so.3"
