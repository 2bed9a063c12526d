# zoo_train's staged warm-up (zoo/zoo_train.cpp, --warmup as an array): each stage starts from the
# weights the one before left, and the output sums the stages' steps. Stage 2 trains at a learning rate
# of 1e-9, so its held-out loss is stage 1's only if it started from stage 1's weights (from a fresh
# initialisation it is the untrained model's). Run as: cmake -DZOO_TRAIN=<exe> -P this file.
set(spec [=[{"task":"induction","model":{"variant":"gqa","nKvHeads":1,"block":"llama","dModel":16,"nHeads":2,"dHead":8,"nLayers":1},"seqLen":16,"batchSize":4,"vocabSize":32}]=])
set(stages [=[[{"task":"induction","seqLen":8,"batchSize":4,"steps":40,"learningRate":0.01},{"task":"induction","seqLen":8,"batchSize":4,"steps":1,"learningRate":1e-9}]]=])
execute_process(COMMAND ${ZOO_TRAIN} --spec ${spec} --seed 1 --steps 2 --warmup ${stages}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "zoo_train failed (${rc}): ${err}")
endif()
string(JSON total GET "${out}" warmup steps)
string(JSON first GET "${out}" warmup stages 0 valLoss)
string(JSON second GET "${out}" warmup stages 1 valLoss)
if(NOT total EQUAL 41)
  message(FATAL_ERROR "warmup.steps is ${total}, not the stages' 40 + 1")
endif()
string(SUBSTRING "${first}" 0 6 first6)
string(SUBSTRING "${second}" 0 6 second6)
if(NOT first6 STREQUAL second6)
  message(FATAL_ERROR "stage 2's held-out loss ${second} is not stage 1's ${first}: it did not start from stage 1's weights")
endif()
# A stage that is not an object is refused, naming it.
execute_process(COMMAND ${ZOO_TRAIN} --spec ${spec} --seed 1 --steps 2 --warmup "[1]"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "each stage is an object, not 1")
  message(FATAL_ERROR "a stage that is not an object: exit ${rc}, '${err}'")
endif()
